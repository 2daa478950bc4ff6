use std::io::{Read, Write};
use std::path::Path;

use serde::Deserialize;
use serde_norway::Value;

use crate::cli::{ExportSettings, PkoExportSettings, Settings};
use crate::commands::LoadedProvider;
use crate::config::{write_atomically, EnvironmentFile, StackConfig};
use crate::error::{Location, Result, UserError};
use crate::exit_status::ExitStatus;
use crate::export::{check_operator_rules, PkoExport, PkoExportOptions, StreamEnd};
use crate::pulumi::ChildEnvironment;

/// `runner export pko` writes the graph as operator resources; `runner export check` checks a stream.
pub(crate) fn export(settings: &Settings, export: &ExportSettings) -> Result<ExitStatus> {
    match export {
        ExportSettings::Pko(pko) => export_pko(settings, pko),
        ExportSettings::Ci(ci) => super::ci::export_ci(settings, ci),
        ExportSettings::Check(file) => check_stream(file),
    }
}

fn export_pko(settings: &Settings, pko: &PkoExportSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &pko.stack.provider)?;
    if let Some(file) = &pko.output {
        crate::commands::InputFiles::of(&settings.root, Some(&loaded.provider)).refuse_overwrite("-o", file)?;
    }
    // What `validate` (and so `up`) would refuse is never exported.
    let (_check, environment, _backend) =
        crate::commands::validate::preflight_like_validate(settings, &pko.stack, &loaded, false)?;
    announce_backend(&environment, &pko.stack.environment);
    let stack = &pko.stack.stack;
    let stack_config = StackConfig::load(&settings.root.stack_config_file(stack))?;
    let secret_name = pko.secret_name.clone().unwrap_or_else(|| {
        let slug: String =
            stack.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        format!("{}-runner-secrets", slug.trim_matches('-'))
    });
    let options = PkoExportOptions {
        namespace: pko.namespace.clone(),
        git: pko.git.clone(),
        destroy_on_finalize: pko.destroy_on_finalize,
        secret_name,
        default_window: pko.prerequisite_window,
    };
    let export = PkoExport::build(
        &loaded.provider,
        settings.root.path(),
        stack,
        &stack_config,
        &pko.stack.environment,
        &options,
    )?;
    let mut err = std::io::stderr().lock();
    for (path, name) in &export.names {
        if let Some(full) = &name.shortened_from {
            let _ = writeln!(
                err,
                "note: project `{path}` is Stack `{}` (`{full}` is longer than 42 characters)",
                name.name
            );
        }
    }
    for line in &export.not_exported {
        let _ = writeln!(err, "not exported: {line}");
    }
    for line in &export.warnings {
        let _ = writeln!(err, "warning: {line}");
    }
    let text = export.render();
    match &pko.output {
        Some(file) => {
            // Relative to where the user is, like any shell redirection.
            let file = std::env::current_dir().unwrap_or_default().join(file);
            write_atomically(&file, text.as_bytes())?;
            let _ = writeln!(err, "wrote {} Stacks to `{}`", export.names.len(), file.display());
        }
        None => {
            crate::commands::write_data(text.as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

fn check_stream(file: &Path) -> Result<ExitStatus> {
    let (name, text) = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| UserError::Unreadable { path: "stdin".into(), source: err })?;
        ("stdin".to_string(), text)
    } else {
        let text = std::fs::read_to_string(file)
            .map_err(|err| UserError::Unreadable { path: file.to_path_buf(), source: err })?;
        (format!("`{}`", file.display()), text)
    };
    let mut documents = Vec::new();
    for document in serde_norway::Deserializer::from_str(&text) {
        let value = Value::deserialize(document).map_err(|err| UserError::InvalidFile {
            location: Location { path: file.to_path_buf(), line: err.location().map(|at| at.line()) },
            message: format!("not valid YAML: {err}"),
        })?;
        documents.push(value);
    }
    StreamEnd::check(&text, documents.len())
        .map_err(|cut| UserError::OperatorRules { input: name.clone(), problems: vec![cut.to_string()] })?;
    let problems = check_operator_rules(&documents);
    if !problems.is_empty() {
        return Err(UserError::OperatorRules { input: name, problems });
    }
    let stacks = documents.iter().filter(|d| d.get("kind").and_then(Value::as_str) == Some("Stack")).count();
    crate::text::stderr_line!("{name}: {stacks} Stacks follow the operator's rules");
    Ok(ExitStatus::Success)
}

/// Which backend the Stacks will use: only `PULUMI_BACKEND_URL` from the environment file, and
/// only one the cluster reaches, becomes `spec.backend`; without it the operator falls back to
/// its own default (Pulumi Cloud), whatever the runner uses on this machine.
fn announce_backend(environment: &ChildEnvironment, file: &EnvironmentFile) {
    let fallback = "the Stacks will use the operator's default backend (Pulumi Cloud)";
    match file.get("PULUMI_BACKEND_URL").filter(|url| !url.is_empty()) {
        Some(url) if !url.starts_with("file://") => {
            crate::text::stderr_line!("backend: the Stacks will use `{url}` (`spec.backend`)")
        }
        Some(_) => crate::text::stderr_line!("backend: {fallback}: a `file://` backend stays on this machine"),
        None if environment.default_backend => crate::text::stderr_line!(
            "warning: the runner's default backend (`.runner/backend`, a folder on this machine) cannot be carried into a cluster: {fallback}; set `PULUMI_BACKEND_URL` in the environment file to a backend the cluster reaches (s3://...) to share state with your runs"
        ),
        None => crate::text::stderr_line!(
            "warning: `PULUMI_BACKEND_URL` comes from this shell, not the environment file, so the export does not carry it: {fallback}"
        ),
    }
}
