use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{EnvironmentFile, RepositoryRoot};
use crate::secrets::{url_password, SecretRule};

/// The environment every `pulumi` child gets: the process environment, then the environment
/// file over it, then what the runner itself needs.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChildEnvironment {
    vars: BTreeMap<String, String>,
    /// Names the environment file set: secret unless known or declared plain (`SecretRule`).
    file_keys: std::collections::BTreeSet<String>,
    /// True when the runner chose the backend (a file backend under `.runner/`).
    pub default_backend: bool,
}

const RUNNER_BACKEND_DIR: &str = "backend";

impl ChildEnvironment {
    pub(crate) fn build(
        process: impl IntoIterator<Item = (String, String)>,
        file: &EnvironmentFile,
        root: &RepositoryRoot,
    ) -> Self {
        let mut vars: BTreeMap<String, String> = process.into_iter().collect();
        let mut file_keys = std::collections::BTreeSet::new();
        let home = vars.get("HOME").filter(|home| !home.is_empty()).cloned();
        for entry in file.entries() {
            vars.insert(entry.key.clone(), entry.value.clone());
            file_keys.insert(entry.key.clone());
        }
        // PULUMI_OPTION_* silently turns into CLI flags, which would change what the runner asked for.
        vars.retain(|key, _| !key.starts_with("PULUMI_OPTION_"));
        vars.insert("PULUMI_SKIP_UPDATE_CHECK".into(), "true".into());
        // `--event-log` is only registered with debug commands on, as the Automation API does.
        vars.insert("PULUMI_DEBUG_COMMANDS".into(), "true".into());
        let default_backend = vars.get("PULUMI_BACKEND_URL").is_none_or(|url| url.is_empty());
        if default_backend {
            let dir = root.state_dir().join(RUNNER_BACKEND_DIR);
            vars.insert("PULUMI_BACKEND_URL".into(), format!("file://{}", dir.display()));
        }
        for key in super::home_path::PATH_LIST_KEYS {
            if let Some(value) = vars.get(key) {
                let resolved = resolve_path_list(value, root, home.as_deref());
                vars.insert(key.into(), resolved);
            }
        }
        Self { vars, file_keys, default_backend }
    }

    /// Exactly `vars`, as the process environment of a checkout without an environment file.
    #[cfg(test)]
    pub(crate) fn from_vars(vars: &[(&str, &str)]) -> Self {
        let root = RepositoryRoot::unchecked(Path::new("/nonexistent"));
        Self::build(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())), &Default::default(), &root)
    }

    /// An empty value counts as unset, by the one rule of `RunEnvironment`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        crate::backend::RunEnvironment::get(self, key)
    }

    pub(crate) fn set(&mut self, key: &str, value: String) {
        self.vars.insert(key.into(), value);
    }

    pub(crate) fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// True when `key` was set by the environment file.
    pub(crate) fn set_by_file(&self, key: &str) -> bool {
        self.file_keys.contains(key)
    }

    /// Values that must never be printed, by `rule`: the environment file's entries, inherited
    /// variables named like credentials, the passphrase file's content and a password inside
    /// the backend URL.
    pub(crate) fn secret_values(&self, rule: &SecretRule) -> Vec<String> {
        let mut secrets: Vec<String> = self
            .vars
            .iter()
            .filter(|(key, value)| {
                if self.file_keys.contains(key.as_str()) {
                    rule.entry_is_secret(key)
                } else {
                    rule.inherited_value_is_secret(key, value)
                }
            })
            .map(|(_, value)| value.clone())
            .filter(|value| !value.is_empty())
            .collect();
        if let Some(password) = self.get("PULUMI_BACKEND_URL").and_then(url_password) {
            secrets.push(password.to_string());
        }
        if let Some(file) = self.get("PULUMI_CONFIG_PASSPHRASE_FILE") {
            if let Ok(text) = std::fs::read_to_string(file) {
                let passphrase = text.trim_end_matches(['\n', '\r']).to_string();
                if !passphrase.is_empty() {
                    secrets.push(passphrase);
                }
            }
        }
        secrets
    }
}

/// `KUBECONFIG`-style lists: `~`, `$HOME` and `${HOME}` are the user's home (a shell would have
/// expanded them; taken as written they name a folder `~` inside the repository), and relative
/// entries are taken from the repository root. Without a home the entry is left as written:
/// [`super::refuse_home_without_home`] stops every command that would use it first.
fn resolve_path_list(value: &str, root: &RepositoryRoot, home: Option<&str>) -> String {
    value
        .split(':')
        .map(|entry| {
            if entry.is_empty() {
                return String::new();
            }
            let entry =
                home.and_then(|home| super::home_path::expand_home(entry, home)).unwrap_or_else(|| entry.to_string());
            root.resolve(Path::new(&entry)).display().to_string()
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// The stores and their credentials (`backend/`) read the run's variables through this.
impl crate::backend::RunEnvironment for ChildEnvironment {
    fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, RepositoryRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("providers")).unwrap();
        let root = RepositoryRoot::at(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn file_overrides_process_and_options_are_removed() {
        let (_dir, root) = root();
        let file = EnvironmentFile::parse(Path::new("environment"), "A=file\nPULUMI_OPTION_YES=true\n").unwrap();
        let process =
            vec![("A".to_string(), "process".to_string()), ("PULUMI_OPTION_PARALLEL".to_string(), "1".to_string())];
        let env = ChildEnvironment::build(process, &file, &root);
        assert_eq!(env.get("A"), Some("file"));
        assert!(env.vars().keys().all(|key| !key.starts_with("PULUMI_OPTION_")));
        assert_eq!(env.get("PULUMI_SKIP_UPDATE_CHECK"), Some("true"));
    }

    #[test]
    fn default_backend_lives_under_runner_state() {
        let (_dir, root) = root();
        let env = ChildEnvironment::build(Vec::new(), &EnvironmentFile::default(), &root);
        assert!(env.default_backend);
        let url = env.get("PULUMI_BACKEND_URL").unwrap();
        assert!(url.starts_with("file://") && url.ends_with(".runner/backend"), "{url}");
    }

    #[test]
    fn relative_kubeconfig_is_taken_from_the_root() {
        let (_dir, root) = root();
        let file = EnvironmentFile::parse(Path::new("environment"), "KUBECONFIG=.runner/kube/config\n").unwrap();
        let env = ChildEnvironment::build(Vec::new(), &file, &root);
        assert_eq!(env.get("KUBECONFIG").map(Path::new), Some(root.path().join(".runner/kube/config").as_path()));
    }

    #[test]
    fn credentials_are_secret() {
        let (_dir, root) = root();
        let file = EnvironmentFile::parse(
            Path::new("environment"),
            "DO_TOKEN=dop_v1_abc\nDB_PASS=x\nPULUMI_STACK=dev\nDECLARED=visible\n",
        )
        .unwrap();
        let process = vec![("GH_PAT".to_string(), "ghp_1".to_string()), ("HOME".to_string(), "/h".to_string())];
        let env = ChildEnvironment::build(process, &file, &root);
        let secrets = env.secret_values(&SecretRule::new(["DECLARED".to_string()]));
        for secret in ["dop_v1_abc", "x", "ghp_1"] {
            assert!(secrets.contains(&secret.to_string()), "{secret}: {secrets:?}");
        }
        for plain in ["visible", "dev", "/h"] {
            assert!(!secrets.contains(&plain.to_string()), "{plain}: {secrets:?}");
        }
    }
}
