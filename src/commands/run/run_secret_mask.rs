use std::path::PathBuf;
use std::thread::JoinHandle;

use crate::provider::Provider;
use crate::pulumi::{decrypt_secure_values, ChildEnvironment};
use crate::secrets::{SecretMask, SecretRule};

/// Every secret a run knows before it starts: the environment file's entries but those known or
/// declared plain (`SecretRule`), inherited variables named like credentials, the variables that
/// feed declared secrets (secret whatever their names), the passphrase, and the `secure:` values
/// already stored in the stack files. Values typed at prompts and stack outputs are added as they
/// become known.
pub(crate) fn run_secret_mask(
    environment: &ChildEnvironment,
    provider: &Provider,
    passphrase: Option<&str>,
) -> SecretMask {
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
pub(crate) fn secret_rule(provider: &Provider) -> SecretRule {
    SecretRule::new(provider.plain_environment.iter().cloned())
}

/// The `secure:` values of the stack files a run reads, decrypted on a thread of their own while
/// the preflight runs: a million PBKDF2 rounds should not wait in line.
pub(crate) struct StoredConfigSecrets {
    files: Vec<PathBuf>,
    decrypting: Option<JoinHandle<Vec<String>>>,
}

impl StoredConfigSecrets {
    /// Starts at once when the environment holds the passphrase; else `add_to` decrypts with
    /// the one typed at the prompt.
    pub(crate) fn start(files: Vec<PathBuf>, environment: &ChildEnvironment) -> Self {
        let decrypting = environment_passphrase(environment).map(|passphrase| {
            let files = files.clone();
            std::thread::spawn(move || decrypt_all(&files, &passphrase))
        });
        Self { files, decrypting }
    }

    /// A file that does not open (no passphrase, another one) is left to `pulumi`, which says why.
    pub(crate) fn add_to(self, mask: &SecretMask, prompted: Option<&str>) {
        let values = match (self.decrypting, prompted) {
            (_, Some(passphrase)) => decrypt_all(&self.files, passphrase),
            (Some(thread), None) => thread.join().unwrap_or_default(),
            (None, None) => Vec::new(),
        };
        for value in values {
            mask.add(&value);
        }
    }
}

fn environment_passphrase(environment: &ChildEnvironment) -> Option<String> {
    if let Some(passphrase) = environment.vars().get("PULUMI_CONFIG_PASSPHRASE") {
        return Some(passphrase.clone());
    }
    let file = environment.get("PULUMI_CONFIG_PASSPHRASE_FILE")?;
    std::fs::read_to_string(file).ok().map(|text| text.trim_end_matches(['\n', '\r']).to_string())
}

fn decrypt_all(files: &[PathBuf], passphrase: &str) -> Vec<String> {
    files
        .iter()
        .filter_map(|file| std::fs::read_to_string(file).ok())
        .filter(|text| text.contains("secure:"))
        .flat_map(|text| decrypt_secure_values(&text, passphrase).unwrap_or_default())
        .collect()
}
