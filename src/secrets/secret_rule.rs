//! Which environment variables hold secrets: one rule for masking and for every export.

use std::collections::BTreeSet;

/// Environment-file entries the runner knows hold no secret: names of stacks, regions, profiles,
/// backends and paths. `PULUMI_BACKEND_URL` is plain, but a password inside it is not
/// (`url_password`).
pub(super) const KNOWN_PLAIN: &[&str] = &[
    "PULUMI_STACK",
    "PULUMI_BACKEND_URL",
    "PULUMI_ORGANIZATION",
    "PULUMI_HOME",
    "PULUMI_CONFIG_PASSPHRASE_FILE",
    "PULUMI_SKIP_UPDATE_CHECK",
    "KUBECONFIG",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_ENDPOINT_URL",
    "GOOGLE_PROJECT",
    "GOOGLE_REGION",
    "GOOGLE_ZONE",
    "ARM_LOCATION",
    "RUNNER_HISTORY_KEEP",
];

/// Names that hold credentials wherever they come from, the process environment included.
const CREDENTIAL_WORDS: &[&str] =
    &["TOKEN", "PASSWORD", "PASSWD", "PASS", "SECRET", "PASSPHRASE", "KEY", "CREDENTIAL", "CREDENTIALS", "AUTH", "PAT"];

/// An environment-file entry is secret unless its name is in `KNOWN_PLAIN` or the provider file
/// declares it plain (`plain_environment`). A variable of the process environment the file does
/// not name is secret when its name reads like a credential (`DB_PASS`, `GH_PAT`, `DD_API_KEY`):
/// the process environment also holds `PATH`, `HOME` and the like, which are nobody's secret.
#[derive(Debug, Clone, Default)]
pub(crate) struct SecretRule {
    declared_plain: BTreeSet<String>,
}

impl SecretRule {
    pub(crate) fn new(declared_plain: impl IntoIterator<Item = String>) -> Self {
        Self { declared_plain: declared_plain.into_iter().collect() }
    }

    pub(crate) fn is_plain(&self, name: &str) -> bool {
        KNOWN_PLAIN.contains(&name) || self.declared_plain.contains(name)
    }

    /// For entries of the environment file (and the CI variables that stand for them).
    pub(crate) fn entry_is_secret(&self, name: &str) -> bool {
        !self.is_plain(name)
    }

    /// For variables the runner inherited and the environment file does not name.
    pub(crate) fn inherited_is_secret(&self, name: &str) -> bool {
        !self.is_plain(name) && names_a_credential(name)
    }

    /// An inherited variable's value is secret when its name is, unless the value is a flag
    /// (`INSTA_FORCE_PASS=1`, `SKIP_AUTH=true`): a switch is nobody's credential, and masking `1`
    /// would blot every digit of every line. The name is only a guess for inherited variables;
    /// an environment-file entry stays secret whatever its value.
    pub(crate) fn inherited_value_is_secret(&self, name: &str, value: &str) -> bool {
        self.inherited_is_secret(name) && !is_flag(value)
    }
}

const FLAGS: &[&str] = &["0", "1", "true", "false", "yes", "no", "on", "off", "y", "n"];

fn is_flag(value: &str) -> bool {
    FLAGS.iter().any(|flag| value.trim().eq_ignore_ascii_case(flag))
}

/// True when one of the `_`-separated words of `name` (or the whole of a run of them, for
/// `PRIVATE_KEY` or `ACCESSKEY`) is a credential word, or it is a connection string
/// (`AZURE_STORAGE_CONNECTION_STRING`), which carries an account key or a SAS token.
fn names_a_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper.replace('_', "").contains("CONNECTIONSTRING") {
        return true;
    }
    upper.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| {
        CREDENTIAL_WORDS
            .iter()
            .any(|credential| word == *credential || (credential.len() >= 5 && word.contains(credential)))
    })
}

/// The password of a `scheme://user:password@host` URL, which must be masked though the URL is
/// printed.
pub(crate) fn url_password(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then_some(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_entries_are_secret_unless_known_or_declared_plain() {
        let rule = SecretRule::new(["DEMO_REGION".to_string()]);
        for name in ["DD_API_KEY", "DB_PASS", "GH_PAT", "ANYTHING", "LOCAL_CLUSTER_TOKEN"] {
            assert!(rule.entry_is_secret(name), "{name}");
        }
        for name in ["PULUMI_STACK", "AWS_REGION", "KUBECONFIG", "DEMO_REGION"] {
            assert!(!rule.entry_is_secret(name), "{name}");
        }
    }

    #[test]
    fn an_inherited_flag_is_no_secret_whatever_its_name() {
        let rule = SecretRule::default();
        for flag in ["1", "0", "true", "FALSE", "Yes", "no", "on", "OFF", " y "] {
            assert!(!rule.inherited_value_is_secret("INSTA_FORCE_PASS", flag), "{flag}");
        }
        for value in ["2", "hunter2", "truefalse", "10"] {
            assert!(rule.inherited_value_is_secret("INSTA_FORCE_PASS", value), "{value}");
        }
        assert!(!rule.inherited_value_is_secret("HOME", "secret-looking"), "the name decides first");
    }

    #[test]
    fn inherited_variables_are_secret_when_named_like_credentials() {
        let rule = SecretRule::default();
        for name in ["DD_API_KEY", "DB_PASS", "GH_PAT", "AWS_SECRET_ACCESS_KEY", "VAULT_TOKEN", "SSH_PRIVATE_KEY"] {
            assert!(rule.inherited_is_secret(name), "{name}");
        }
        for name in ["AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING", "DB_CONNECTION_STRING"] {
            assert!(rule.inherited_is_secret(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "KUBECONFIG", "PATHEXT", "KEYBOARD_LAYOUT"] {
            assert!(!rule.inherited_is_secret(name), "{name}");
        }
    }

    #[test]
    fn a_backend_url_password_is_found() {
        assert_eq!(url_password("postgres://u:p%40ss@db:5432/x"), Some("p%40ss"));
        assert_eq!(url_password("s3://bucket?endpoint=http://127.0.0.1:9000"), None);
        assert_eq!(url_password("file:///tmp/state"), None);
    }
}
