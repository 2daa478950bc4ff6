use super::run_context::RunContext;
use crate::cli::Settings;
use crate::commands::{LoadedProvider, StackCheck};
use crate::error::{AskedBy, MissingSetting, Result, UserError};
use crate::plan::Operation;
use crate::prompt::TerminalPrompter;
use crate::provider::ConfigKey;
use crate::pulumi::{Backend, SecretStore};

const INFRA_TYPE: &str = "kubernetes:infra_type";

/// What a run still has to write before it starts: every question answered, nothing written yet.
#[derive(Debug, Default)]
pub(crate) struct PendingConfiguration {
    pub config_values: Vec<(String, String)>,
    pub secrets: Vec<(SecretStore, String, String)>,
    pub passphrase: Option<String>,
}

/// Finds everything missing (configuration, secrets, passphrase). In a terminal it asks for each
/// value; otherwise it fails with one error listing all of them and how to set each. Writes nothing.
pub(crate) fn gather_configuration(context: &RunContext) -> Result<PendingConfiguration> {
    let RunContext { settings, run, loaded, check, environment, backend, selected } = *context;
    let prompter = run.interactive.then(|| TerminalPrompter::new(settings.style.color));
    let mut pending = PendingConfiguration::default();
    let mut missing: Vec<MissingSetting> = Vec::new();
    let lookup = |name: &str| environment.get(name).map(str::to_string);

    let passphrase_missing = backend.is_local()
        && environment.get("PULUMI_CONFIG_PASSPHRASE").is_none()
        && environment.get("PULUMI_CONFIG_PASSPHRASE_FILE").is_none();
    if passphrase_missing {
        match &prompter {
            Some(prompter) => {
                pending.passphrase =
                    Some(crate::commands::shared::passphrase_check::ask_passphrase(prompter, &run.stack.stack, check.config.path())?);
            }
            None => missing.push(MissingSetting {
                key: "PULUMI_CONFIG_PASSPHRASE".into(),
                how_to_set: "set `PULUMI_CONFIG_PASSPHRASE` or `PULUMI_CONFIG_PASSPHRASE_FILE` in `config/pulumi/environment` or the environment".into(),
            }),
        }
    }

    // `drift` only reads: it writes no stack file and asks for no configuration. What it cannot
    // read without them, `pulumi` says for the project that needs it.
    if run.operation == Operation::Drift {
        return match missing.is_empty() {
            true => Ok(pending),
            false => Err(UserError::MissingConfig {
                stack: run.stack.stack.clone(),
                missing,
                asked_by: AskedBy::ThisCommand,
            }),
        };
    }

    match &prompter {
        Some(prompter) => {
            for name in &check.absent {
                let key = config_key(loaded, name);
                let default = key.default_env.as_deref().and_then(lookup).or_else(|| key.default.clone());
                pending.config_values.push((key.key.clone(), prompter.config_value(key, default.as_deref())?));
            }
            // Not a question: the provider decides it.
            pending.config_values.extend(check.defaults_to_write.iter().filter(|(key, _)| key == INFRA_TYPE).cloned());
        }
        None => {
            pending.config_values.extend(check.defaults_to_write.iter().cloned());
            missing.extend(check.missing.iter().cloned());
        }
    }

    let root = settings.root.path();
    if !check.missing_secrets.is_empty() {
        let shared = SecretStore::locate(&settings.root, &loaded.provider, &run.stack.stack, backend, false)?;
        for name in &check.missing_secrets {
            let key = config_key(loaded, name);
            let Some(store) = &shared else { continue };
            refuse_shared_secret(store, &key.key, key.default_env.as_deref(), backend, root)?;
            match &prompter {
                Some(prompter) => {
                    pending.secrets.push((store.clone(), key.key.clone(), prompter.config_value(key, None)?))
                }
                None => missing.push(MissingSetting {
                    key: key.key.clone(),
                    how_to_set: secret_help(
                        &config_set_command(&loaded.provider.name, &run.stack.stack, &key.key, None),
                        key.default_env.as_deref(),
                    ),
                }),
            }
        }
    }

    // Project secrets matter only to operations that run programs; refresh and destroy never ask.
    if matches!(run.operation, Operation::Up | Operation::Preview) {
        let store = SecretStore::locate(&settings.root, &loaded.provider, &run.stack.stack, backend, true)?;
        if let Some(store) = store {
            // Read once: every secret already set, and each one asked for at most once.
            let mut seen = store.keys_set()?;
            for &node in selected {
                for secret in &loaded.graph.project(node).secrets {
                    if !seen.insert(secret.key.clone()) {
                        continue;
                    }
                    refuse_shared_secret(&store, &secret.key, secret.default_env.as_deref(), backend, root)?;
                    if let Some(value) = secret.default_env.as_deref().and_then(lookup) {
                        pending.secrets.push((store.clone(), secret.key.clone(), value));
                        continue;
                    }
                    match &prompter {
                        Some(prompter) => {
                            let value = prompter.secret(&format!("{} ({})", secret.prompt, secret.key))?;
                            pending.secrets.push((store.clone(), secret.key.clone(), value));
                        }
                        None => missing.push(MissingSetting {
                            key: secret.key.clone(),
                            how_to_set: secret_help(
                                &config_set_command(
                                    &loaded.provider.name,
                                    &run.stack.stack,
                                    &secret.key,
                                    Some(loaded.graph.project(node).path.as_str()),
                                ),
                                secret.default_env.as_deref(),
                            ),
                        }),
                    }
                }
            }
        }
    }

    if missing.is_empty() {
        Ok(pending)
    } else {
        Err(UserError::MissingConfig { stack: run.stack.stack.clone(), missing, asked_by: AskedBy::ThisCommand })
    }
}

fn config_key<'a>(loaded: &'a LoadedProvider, name: &str) -> &'a ConfigKey {
    loaded.provider.config.iter().find(|key| key.key == name).expect("checked keys come from the provider")
}

/// A command that works as printed: the runner injects the backend, passphrase and config file.
pub(crate) fn config_set_command(provider: &str, stack: &str, key: &str, project: Option<&str>) -> String {
    let mut command = format!("runner config set --secret {key} --provider {provider} --stack {stack}");
    if let Some(project) = project {
        command.push_str(&format!(" --project {project}"));
    }
    command
}

fn secret_help(command: &str, default_env: Option<&str>) -> String {
    let mut help = format!("a secret: run `{command}` and type the value");
    if let Some(env) = default_env {
        help.push_str(&format!(", or set `{env}`"));
    }
    help
}

/// A secret meant for every stack through the shared file decrypts in all of them only when they
/// share the file's passphrase salt; on the service each stack has its own key.
fn refuse_shared_secret(
    store: &SecretStore,
    key: &str,
    default_env: Option<&str>,
    backend: &Backend,
    root: &std::path::Path,
) -> Result<()> {
    if !store.is_shared() || backend.uses_passphrase() {
        return Ok(());
    }
    let file = store.stack_file();
    Err(UserError::SharedSecretRefused {
        key: key.to_string(),
        file: file.strip_prefix(root).unwrap_or(file).to_path_buf(),
        backend: backend.url.clone(),
        default_env: default_env.map(str::to_string),
    })
}

/// What `runner validate` can tell without asking: a secret the run would have to keep in the
/// shared stack file, on a backend where only one stack could decrypt it.
pub(crate) fn check_shared_secrets(
    settings: &Settings,
    loaded: &LoadedProvider,
    stack: &str,
    check: &StackCheck,
    backend: &Backend,
) -> Result<()> {
    if backend.uses_passphrase() {
        return Ok(());
    }
    let root = settings.root.path();
    if !check.missing_secrets.is_empty() {
        if let Some(store) = SecretStore::locate(&settings.root, &loaded.provider, stack, backend, false)? {
            for name in &check.missing_secrets {
                let key = config_key(loaded, name);
                refuse_shared_secret(&store, &key.key, key.default_env.as_deref(), backend, root)?;
            }
        }
    }
    if let Some(store) = SecretStore::locate(&settings.root, &loaded.provider, stack, backend, true)? {
        let set = store.keys_set()?;
        for project in loaded.graph.projects() {
            for secret in project.secrets.iter().filter(|secret| !set.contains(&secret.key)) {
                refuse_shared_secret(&store, &secret.key, secret.default_env.as_deref(), backend, root)?;
            }
        }
    }
    Ok(())
}
