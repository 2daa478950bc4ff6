use std::io::{Read, Write};
use std::path::Path;

use serde::Deserialize;
use serde_yaml::Value;

use super::LoadedProvider;
use crate::cli::{ExportSettings, PkoExportSettings, Settings};
use crate::config::{write_atomically, StackConfig};
use crate::error::{Location, Result, UserError};
use crate::exit_status::ExitStatus;
use crate::export::{check_operator_rules, PkoExport, PkoExportOptions, StreamEnd};

/// `runner export pko` writes the graph as operator resources; `runner export check` checks a stream.
pub fn export(settings: &Settings, export: &ExportSettings) -> Result<ExitStatus> {
    match export {
        ExportSettings::Pko(pko) => export_pko(settings, pko),
        ExportSettings::Check(file) => check_stream(file),
    }
}

fn export_pko(settings: &Settings, pko: &PkoExportSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &pko.stack.provider)?;
    if let Some(file) = &pko.output {
        super::InputFiles::of(&settings.root, Some(&loaded.provider)).refuse_overwrite("-o", file)?;
    }
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
            super::write_data(text.as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

fn check_stream(file: &Path) -> Result<ExitStatus> {
    let (name, text) = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| UserError::Unreadable { path: "stdin".into(), reason: err.to_string() })?;
        ("stdin".to_string(), text)
    } else {
        let text = std::fs::read_to_string(file)
            .map_err(|err| UserError::Unreadable { path: file.to_path_buf(), reason: err.to_string() })?;
        (format!("`{}`", file.display()), text)
    };
    let mut documents = Vec::new();
    for document in serde_yaml::Deserializer::from_str(&text) {
        let value = Value::deserialize(document).map_err(|err| UserError::InvalidFile {
            location: Location { path: file.to_path_buf(), line: err.location().map(|at| at.line()) },
            message: format!("not valid YAML: {err}"),
        })?;
        documents.push(value);
    }
    StreamEnd::check(&text, documents.len())
        .map_err(|problem| UserError::OperatorRules { input: name.clone(), problems: vec![problem] })?;
    let problems = check_operator_rules(&documents);
    if !problems.is_empty() {
        return Err(UserError::OperatorRules { input: name, problems });
    }
    let stacks = documents.iter().filter(|d| d.get("kind").and_then(Value::as_str) == Some("Stack")).count();
    crate::text::stderr_line!("{name}: {stacks} Stacks follow the operator's rules");
    Ok(ExitStatus::Success)
}
