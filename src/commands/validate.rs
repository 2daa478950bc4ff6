use super::{missing_problem, undeclared_references, unlock_command, LoadedProvider, StackCheck};
use crate::cli::{Settings, StackSettings};
use crate::error::{AskedBy, MissingSetting, Result, UserError};
use crate::exit_status::ExitStatus;
use crate::preflight::{Preflight, PreflightInput};
use crate::pulumi::SecretStore;
use crate::pulumi::{Backend, ChildEnvironment};

/// `runner validate`: every check a run makes before starting, with no prompt and no change.
pub(crate) fn validate(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let (_check, _environment, backend) = preflight_like_validate(settings, stack, &loaded, true)?;
    let references = undeclared_references(&loaded, &backend, &stack.stack);
    for reference in &references {
        crate::text::stderr_line!("warning: {}", reference.message);
    }
    crate::text::stdout_line!(
        "provider `{}` and stack `{}` are valid: {}, {}",
        loaded.provider.name,
        stack.stack,
        crate::text::counted(loaded.graph.len(), "project"),
        crate::text::counted(loaded.provider.config.len(), "configuration key")
    );
    Ok(ExitStatus::Success)
}

/// The checks `validate` makes, with its problems and exit status: `export pko` runs them too,
/// so what a run would refuse is never exported; but for the language hosts, which the
/// operator's machine has, not this one (`programs_run_here`).
pub(super) fn preflight_like_validate(
    settings: &Settings,
    stack: &StackSettings,
    loaded: &LoadedProvider,
    programs_run_here: bool,
) -> Result<(StackCheck, ChildEnvironment, Backend)> {
    let check = StackCheck::run(settings, stack, &loaded.provider)?;
    for warning in &check.warnings {
        crate::text::stderr_line!("warning: {}: {}", warning.location, warning.message);
    }
    let environment = ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    super::check_shared_secrets(settings, loaded, &stack.stack, &check, &backend)?;
    let mut preflight = Preflight::run(&PreflightInput {
        root: &settings.root,
        provider: &loaded.provider,
        projects: loaded.graph.projects().iter().collect(),
        stack: &stack.stack,
        environment: &environment,
        backend: &backend,
        reports: Vec::new(),
        unlock_command: unlock_command(&loaded.provider.name, &stack.stack),
        require_passphrase: false,
        report_locks: true,
        programs_run_here,
    });
    let mut missing = check.missing.clone();
    let passphrase_set = environment.get("PULUMI_CONFIG_PASSPHRASE").is_some()
        || environment.get("PULUMI_CONFIG_PASSPHRASE_FILE").is_some();
    if backend.is_local() && !passphrase_set {
        missing.push(MissingSetting {
            key: "PULUMI_CONFIG_PASSPHRASE".into(),
            how_to_set: "the local backend encrypts secrets with a passphrase: set `PULUMI_CONFIG_PASSPHRASE` or `PULUMI_CONFIG_PASSPHRASE_FILE` in `config/pulumi/environment` or the environment".into(),
        });
    }
    missing.extend(missing_secrets(settings, stack, loaded, &check, &environment, &backend));
    if preflight.problems.is_empty() && !missing.is_empty() {
        for note in &preflight.notes {
            crate::text::stderr_line!("note: {note}");
        }
        let command = format!("runner up --provider {} --stack {}", loaded.provider.name, stack.stack);
        return Err(UserError::MissingConfig {
            stack: stack.stack.clone(),
            missing,
            asked_by: AskedBy::Up { command },
        });
    }
    preflight.problems.extend(missing.iter().map(missing_problem));
    preflight.into_result()?;
    if backend.uses_passphrase() {
        crate::commands::shared::passphrase_check::check_passphrase(
            &stack.stack,
            check.config.path(),
            &environment,
            None,
        )?;
    }
    Ok((check, environment, backend))
}

/// Secrets an `up` would ask for: secret configuration keys and project secrets that are not set
/// and have no variable to take them from.
fn missing_secrets(
    settings: &Settings,
    stack: &StackSettings,
    loaded: &LoadedProvider,
    check: &StackCheck,
    environment: &ChildEnvironment,
    backend: &Backend,
) -> Vec<MissingSetting> {
    let mut problems = Vec::new();
    let with_env = |env: Option<&str>| env.is_some_and(|name| environment.get(name).is_some());
    for name in &check.missing_secrets {
        let key = loaded.provider.config.iter().find(|key| &key.key == name);
        if !with_env(key.and_then(|key| key.default_env.as_deref())) {
            problems.push(MissingSetting {
                key: name.clone(),
                how_to_set: format!(
                    "a secret: run `{}` and type the value",
                    super::config_set_command(&loaded.provider.name, &stack.stack, name, None)
                ),
            });
        }
    }
    let Ok(Some(store)) = SecretStore::locate(&settings.root, &loaded.provider, &stack.stack, backend, true) else {
        return problems;
    };
    let mut seen = store.keys_set().unwrap_or_default();
    for project in loaded.graph.projects() {
        for secret in &project.secrets {
            if seen.insert(secret.key.clone()) && !with_env(secret.default_env.as_deref()) {
                let command = super::config_set_command(
                    &loaded.provider.name,
                    &stack.stack,
                    &secret.key,
                    Some(project.path.as_str()),
                );
                let mut how_to_set =
                    format!("a secret of project `{}`: run `{command}` and type the value", project.path);
                if let Some(env) = &secret.default_env {
                    how_to_set.push_str(&format!(", or set `{env}`"));
                }
                problems.push(MissingSetting { key: secret.key.clone(), how_to_set });
            }
        }
    }
    problems
}
