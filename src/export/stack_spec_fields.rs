//! The parts of one `Stack`'s spec that come from the runner's configuration: environment,
//! stack configuration and secrets, and what the operator has no field for.

use std::collections::BTreeMap;

use serde_norway::{Mapping, Value};

use super::PkoExportOptions;
use crate::config::{EnvironmentFile, StackConfig};
use crate::provider::{Project, Provider};
use crate::secrets::{url_password, SecretRule};

/// A secret value: where it goes in the Secret, and the placeholder standing for it.
#[derive(Debug, Clone)]
pub(super) struct SecretEntry {
    pub key: String,
    pub placeholder: String,
}

pub(super) fn secret_ref(secret_name: &str, key: &str) -> Value {
    let mut secret = Mapping::new();
    secret.insert("name".into(), secret_name.into());
    secret.insert("key".into(), key.into());
    let mut reference = Mapping::new();
    reference.insert("type".into(), "Secret".into());
    reference.insert("secret".into(), Value::Mapping(secret));
    Value::Mapping(reference)
}

pub(super) fn literal_ref(value: &str) -> Value {
    let mut literal = Mapping::new();
    literal.insert("value".into(), value.into());
    let mut reference = Mapping::new();
    reference.insert("type".into(), "Literal".into());
    reference.insert("literal".into(), Value::Mapping(literal));
    Value::Mapping(reference)
}

/// `envRefs` from the environment file, and the backend URL when the cluster can reach it.
pub(super) fn environment_refs(
    provider: &Provider,
    stack_config: &StackConfig,
    environment: &EnvironmentFile,
    options: &PkoExportOptions,
    secrets: &mut BTreeMap<String, SecretEntry>,
    warnings: &mut Vec<String>,
) -> (Mapping, Option<String>) {
    let declared_envs: Vec<&str> = provider
        .projects
        .iter()
        .flat_map(|project| project.secrets.iter())
        .filter_map(|secret| secret.default_env.as_deref())
        .chain(provider.config.iter().filter(|key| key.secret).filter_map(|key| key.default_env.as_deref()))
        .collect();
    // The same rule masks the entries in every log: what is masked there is a secret here.
    let rule = SecretRule::new(provider.plain_environment.iter().cloned());
    let mut refs = Mapping::new();
    let mut backend = None;
    let mut add_secret = |key: &str, refs: &mut Mapping| {
        secrets.insert(key.to_string(), SecretEntry { key: key.to_string(), placeholder: key.to_string() });
        refs.insert(key.into(), secret_ref(&options.secret_name, key));
    };
    for entry in environment.entries() {
        let key = entry.key.as_str();
        match key {
            "PULUMI_STACK" => continue,
            "PULUMI_BACKEND_URL" => {
                if entry.value.starts_with("file://") || entry.value.is_empty() {
                    warnings.push(format!(
                        "`PULUMI_BACKEND_URL={}` is a folder on this machine: give the Stacks a backend the cluster reaches (s3://, Pulumi Cloud)",
                        entry.value
                    ));
                } else if url_password(&entry.value).is_some() {
                    // A password inside the URL: the whole URL comes from the Secret.
                    add_secret(key, &mut refs);
                } else {
                    backend = Some(entry.value.clone());
                }
                continue;
            }
            "KUBECONFIG" => {
                warnings.push(format!(
                    "`KUBECONFIG={}` (line {}) is a path on this machine: not exported; the operator's workspace uses its service account",
                    entry.value, entry.line
                ));
                continue;
            }
            "PULUMI_CONFIG_PASSPHRASE_FILE" => {
                add_secret("PULUMI_CONFIG_PASSPHRASE", &mut refs);
                continue;
            }
            _ => {}
        }
        if key.starts_with("PULUMI_OPTION_") {
            continue;
        }
        if rule.entry_is_secret(key) || declared_envs.contains(&key) {
            add_secret(key, &mut refs);
        } else {
            refs.insert(key.into(), literal_ref(&entry.value));
        }
    }
    let encrypted = stack_config.text().is_some_and(|text| text.contains("encryptionsalt:"));
    if encrypted && !refs.contains_key("PULUMI_CONFIG_PASSPHRASE") && environment.get("PULUMI_ACCESS_TOKEN").is_none() {
        add_secret("PULUMI_CONFIG_PASSPHRASE", &mut refs);
    }
    (refs, backend)
}

/// Plain values of the shared stack file go inline; `secure:` values and secret keys become
/// `secretsRef` entries read from the Secret.
pub(super) fn config_values(
    provider: &Provider,
    stack_config: &StackConfig,
    options: &PkoExportOptions,
    secrets: &mut BTreeMap<String, SecretEntry>,
) -> (Mapping, Mapping) {
    let mut config = Mapping::new();
    let mut secret_refs = Mapping::new();
    for key in stack_config.keys() {
        let declared = provider.config.iter().find(|config_key| config_key.key == key);
        let secret = stack_config.is_secure(key) || declared.is_some_and(|config_key| config_key.secret);
        if secret {
            let default_env = declared.and_then(|config_key| config_key.default_env.as_deref()).or_else(|| {
                provider
                    .projects
                    .iter()
                    .flat_map(|project| project.secrets.iter())
                    .find(|spec| spec.key == key)
                    .and_then(|spec| spec.default_env.as_deref())
            });
            let entry = config_secret(key, default_env, secrets);
            secret_refs.insert(key.into(), secret_ref(&options.secret_name, &entry.key));
        } else if let Some(value) = stack_config.get(key) {
            config.insert(key.into(), value.clone());
        }
    }
    (config, secret_refs)
}

/// A configuration secret's entry in the Secret: `config.<key>` with `:` as `.`, and the
/// variable that supplies it locally as its placeholder.
pub(super) fn config_secret(
    key: &str,
    default_env: Option<&str>,
    secrets: &mut BTreeMap<String, SecretEntry>,
) -> SecretEntry {
    let secret_key: String = format!("config.{key}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '.' })
        .collect();
    let placeholder = default_env.map(str::to_string).unwrap_or_else(|| {
        key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
    });
    secrets.entry(secret_key.clone()).or_insert_with(|| SecretEntry { key: secret_key, placeholder }).clone()
}

/// Secrets a project declares land in the secrets project's stack when the provider has one.
pub(super) fn declared_secrets_of<'a>(
    provider: &'a Provider,
    project: &Project,
) -> Vec<&'a crate::provider::SecretSpec> {
    let all = provider.projects.iter().flat_map(|declaring| declaring.secrets.iter().map(move |s| (declaring, s)));
    match &provider.secrets_project {
        Some(holder) if holder == &project.path => all.map(|(_, secret)| secret).collect(),
        Some(_) => Vec::new(),
        None => all.filter(|(declaring, _)| declaring.path == project.path).map(|(_, secret)| secret).collect(),
    }
}

/// What the runner does for a project that the operator has no field for.
pub(super) fn unmapped(project: &Project) -> Vec<String> {
    let mut lines = Vec::new();
    for hook in &project.on_success {
        lines.push(format!(
            "{}: on_success hook ({}): run it yourself once the Stack succeeds",
            project.path,
            hook.describe()
        ));
    }
    for gate in &project.ready {
        lines.push(format!(
            "{}: ready gate {}: dependents start as soon as the Stack succeeds",
            project.path,
            gate.describe()
        ));
    }
    if let Some(retry) = &project.retry {
        lines.push(format!(
            "{}: retry policy ({}): the operator retries every failed update with its own backoff",
            project.path,
            crate::text::counted(retry.attempts as usize, "attempt")
        ));
    }
    if project.only_as_prerequisite {
        lines.push(format!(
            "{}: only_as_prerequisite: the operator reconciles this Stack like any other, and re-runs it when a dependent needs it fresh",
            project.path
        ));
    }
    lines
}
