use crate::provider::Provider;
use crate::pulumi::ChildEnvironment;
use crate::secrets::{SecretMask, SecretRule};

/// Every secret a run knows before it starts: the environment file's entries but those known or
/// declared plain (`SecretRule`), inherited variables named like credentials, the variables that
/// feed declared secrets (secret whatever their names), and the passphrase.
/// Values typed at prompts and stack outputs are added as they become known.
pub fn run_secret_mask(environment: &ChildEnvironment, provider: &Provider, passphrase: Option<&str>) -> SecretMask {
    let mask = SecretMask::new(environment.secret_values(&secret_rule(provider)));
    let secret_variables = provider
        .config
        .iter()
        .filter(|key| key.secret)
        .filter_map(|key| key.default_env.clone())
        .chain(provider.projects.iter().flat_map(|p| p.secrets.iter().filter_map(|s| s.default_env.clone())));
    for name in secret_variables {
        if let Some(value) = environment.get(&name) {
            mask.add(value);
        }
    }
    if let Some(passphrase) = passphrase {
        mask.add(passphrase);
    }
    mask
}

/// The one rule of what is secret, as the provider file amends it.
pub fn secret_rule(provider: &Provider) -> SecretRule {
    SecretRule::new(provider.plain_environment.iter().cloned())
}
