use std::collections::BTreeSet;

use super::{gather_configuration, LoadedProvider, PendingConfiguration, StackCheck};
use crate::cli::{ReportTarget, RunSettings, Settings};
use crate::error::{MissingSetting, Result, UserError};
use crate::graph::NodeIndex;
use crate::preflight::{Preflight, PreflightInput};
use crate::pulumi::{Backend, ChildEnvironment};

/// The preflight of a run, then the configuration it still needs. In a terminal the preflight
/// must pass before any question is asked; without one, missing settings join the preflight's
/// problems so one error lists everything.
#[allow(clippy::too_many_arguments)]
pub fn preflight_and_gather(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    check: &StackCheck,
    environment: &ChildEnvironment,
    backend: &Backend,
    selected: &BTreeSet<NodeIndex>,
) -> Result<PendingConfiguration> {
    let preflight = Preflight::run(&PreflightInput {
        root: &settings.root,
        provider: &loaded.provider,
        projects: selected.iter().map(|&node| loaded.graph.project(node)).collect(),
        stack: &run.stack.stack,
        environment,
        backend,
        reports: run.reports.iter().map(report_path).collect(),
        unlock_command: unlock_command(&loaded.provider.name, &run.stack.stack),
        require_passphrase: false,
        report_locks: false,
    });
    if run.interactive || preflight.problems.is_empty() {
        preflight.into_result()?;
        return gather_configuration(settings, run, loaded, check, environment, backend, selected);
    }
    let mut problems = preflight.problems;
    match gather_configuration(settings, run, loaded, check, environment, backend, selected) {
        Err(UserError::MissingConfig { missing, .. }) => problems.extend(missing.iter().map(missing_problem)),
        Err(other) => problems.push(other.to_string()),
        Ok(_) => {}
    }
    for note in &preflight.notes {
        crate::text::stderr_line!("note: {note}");
    }
    Err(UserError::PreflightFailed { problems })
}

pub fn missing_problem(setting: &MissingSetting) -> String {
    format!("missing `{}`: {}", setting.key, setting.how_to_set)
}

pub fn report_path(target: &ReportTarget) -> std::path::PathBuf {
    match target {
        ReportTarget::Json(path) | ReportTarget::Junit(path) | ReportTarget::Markdown(path) => path.clone(),
    }
}

/// The command that removes Pulumi locks left by a runner that died.
pub fn unlock_command(provider: &str, stack: &str) -> String {
    format!("runner unlock --provider {provider} --stack {stack}")
}
