use crate::cli::{Settings, StackSettings};
use crate::config::{StackConfig, StackConfigWarning};
use crate::error::{MissingSetting, Result, UserError};
use crate::provider::Provider;

/// The stack configuration checked against the provider: what is wrong, missing, or filled by defaults.
#[derive(Debug, Clone)]
pub(crate) struct StackCheck {
    pub config: StackConfig,
    pub warnings: Vec<StackConfigWarning>,
    /// Required keys absent from the file that have a value from `default_env` or `default`.
    pub defaults_to_write: Vec<(String, String)>,
    /// Required keys with no value anywhere.
    pub missing: Vec<MissingSetting>,
    /// Keys declared `secret` with no value in the file or the environment: stored only through
    /// `pulumi config set --secret`, never written as plain text.
    pub missing_secrets: Vec<String>,
    /// Keys absent from the file, for prompts in a terminal (in declaration order).
    pub absent: Vec<String>,
}

impl StackCheck {
    pub(crate) fn run(settings: &Settings, stack: &StackSettings, provider: &Provider) -> Result<Self> {
        let path = crate::commands::shared_stack_file(&settings.root, provider, &stack.stack)?;
        let config = StackConfig::load(&path)?;
        if let (Some(expected), Some(found)) = (&provider.infra_type, config.get_string("kubernetes:infra_type")) {
            if !expected.eq_ignore_ascii_case(&found) {
                return Err(UserError::InfraTypeMismatch {
                    location: config.location_of("kubernetes:infra_type"),
                    found,
                    expected: expected.clone(),
                    provider: provider.name.clone(),
                });
            }
        }
        let lookup_env = |name: &str| {
            stack
                .environment
                .get(name)
                .map(str::to_string)
                .or_else(|| std::env::var(name).ok())
                .filter(|v| !v.is_empty())
        };
        let relative = settings.root.relative(&path).display().to_string();
        let mut defaults_to_write = Vec::new();
        let mut missing = Vec::new();
        let mut missing_secrets = Vec::new();
        let mut absent = Vec::new();
        for key in &provider.config {
            if config.contains(&key.key) {
                continue;
            }
            let from_env = key.default_env.as_deref().and_then(lookup_env);
            if key.secret {
                // From the environment, the child process gets it as is; never copy it into a file.
                if from_env.is_none() {
                    missing_secrets.push(key.key.clone());
                }
                continue;
            }
            absent.push(key.key.clone());
            match from_env.or_else(|| key.default.clone()) {
                Some(value) => defaults_to_write.push((key.key.clone(), value)),
                None => {
                    let mut how_to_set = format!("add `{}: VALUE` under `config:` in `{relative}`", key.key);
                    if let Some(env) = &key.default_env {
                        how_to_set.push_str(&format!(", or set `{env}` in `config/pulumi/environment`"));
                    }
                    missing.push(MissingSetting { key: key.key.clone(), how_to_set });
                }
            }
        }
        if let Some(infra_type) = &provider.infra_type {
            if !config.contains("kubernetes:infra_type") {
                defaults_to_write.push(("kubernetes:infra_type".into(), infra_type.clone()));
            }
        }
        let mut warnings = config.float_warnings();
        warnings.extend(missing_environment_file(settings, stack));
        warnings.extend(short_secrets(settings, stack, provider));
        warnings.extend(file_over_process(settings, stack));
        Ok(Self { config, warnings, defaults_to_write, missing, missing_secrets, absent })
    }
}

/// Without the environment file a run still works from the process environment, but the
/// passphrase, the backend and `KUBECONFIG` the user meant to set are silently not there.
fn missing_environment_file(settings: &Settings, stack: &StackSettings) -> Option<StackConfigWarning> {
    if stack.environment.found() {
        return None;
    }
    // CI keeps its values in the job's environment: there the missing file is the expected state,
    // and copying the example would lay its demo passphrase over the CI secrets.
    let set = |key: &str| std::env::var(key).is_ok_and(|value| !value.is_empty());
    let passphrase = set("PULUMI_CONFIG_PASSPHRASE") || set("PULUMI_CONFIG_PASSPHRASE_FILE");
    if set("PULUMI_BACKEND_URL") && passphrase {
        return None;
    }
    let path = stack.environment.path();
    let relative = |path: &std::path::Path| settings.root.relative(path).display().to_string();
    let example = path.with_file_name("environment.example");
    let start = if example.exists() {
        format!("start one with `cp {} {}`", relative(&example), relative(path))
    } else {
        format!("create `{}` with `PULUMI_STACK=...` and the backend's settings", relative(path))
    };
    Some(StackConfigWarning {
        location: crate::error::Location::file(relative(path)),
        message: format!(
            "no environment file: the passphrase, the backend and `KUBECONFIG` come only from the process environment; {start}"
        ),
    })
}

/// An entry of the environment file that the process environment also sets, to another value:
/// the file wins (as `pulumi` would see it through the runner), which a CI job setting its own
/// value should hear. No value is printed.
fn file_over_process(settings: &Settings, stack: &StackSettings) -> Vec<StackConfigWarning> {
    let file = settings.root.relative(stack.environment.path()).display().to_string();
    stack
        .environment
        .entries()
        .iter()
        .filter(|entry| std::env::var(&entry.key).is_ok_and(|value| !value.is_empty() && value != entry.value))
        .map(|entry| StackConfigWarning {
            location: crate::error::Location::line(file.clone(), entry.line),
            message: format!(
                "`{}` is set both here and in the process environment, to different values: this file's value is used",
                entry.key
            ),
        })
        .collect()
}

/// Below this many characters a secret is masked wherever its text appears, which is legal and
/// safe but makes output hard to read: worth a word, since most such entries are no secret.
const SHORT_SECRET: usize = 4;

/// Environment entries the secret rule masks though their value is a few characters long
/// (`DEBUG=1`): said once, with the way to declare them plain.
fn short_secrets(settings: &Settings, stack: &StackSettings, provider: &Provider) -> Vec<StackConfigWarning> {
    let rule = crate::commands::run::run_secret_mask::secret_rule(provider);
    let file = settings.root.relative(stack.environment.path()).display().to_string();
    let provider_file = settings.root.relative(&provider.file).display().to_string();
    stack
        .environment
        .entries()
        .iter()
        .filter(|entry| rule.entry_is_secret(&entry.key))
        .filter(|entry| (1..SHORT_SECRET).contains(&entry.value.chars().count()))
        .map(|entry| StackConfigWarning {
            location: crate::error::Location::line(file.clone(), entry.line),
            message: format!(
                "`{}` is masked as a secret and its value has {}: that text becomes `[secret]` wherever it appears in the output; if it is no secret, add `plain_environment = [\"{}\"]` to `{provider_file}`",
                entry.key,
                crate::text::counted(entry.value.chars().count(), "character"),
                entry.key
            ),
        })
        .collect()
}
