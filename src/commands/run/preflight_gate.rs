use super::run_context::RunContext;
use crate::commands::{gather_configuration, PendingConfiguration};
use crate::error::{MissingSetting, Result, UserError};
use crate::preflight::{Preflight, PreflightInput};

/// The preflight of a run, then the configuration it still needs. In a terminal the preflight
/// must pass before any question is asked; without one, missing settings join the preflight's
/// problems so one error lists everything.
pub(crate) fn preflight_and_gather(context: &RunContext) -> Result<PendingConfiguration> {
    let RunContext { settings, run, loaded, environment, backend, selected, .. } = *context;
    let preflight = Preflight::run(&PreflightInput {
        root: &settings.root,
        provider: &loaded.provider,
        projects: selected.iter().map(|&node| loaded.graph.project(node)).collect(),
        stack: &run.stack.stack,
        environment,
        backend,
        reports: run.reports.iter().map(|report| report.path()).collect(),
        unlock_command: crate::commands::unlock_command(&loaded.provider.name, &run.stack.stack),
        require_passphrase: false,
        report_locks: false,
        programs_run_here: true,
    });
    if run.interactive || preflight.problems.is_empty() {
        preflight.into_result()?;
        return gather_configuration(context);
    }
    let mut problems = preflight.problems;
    match gather_configuration(context) {
        Err(UserError::MissingConfig { missing, .. }) => problems.extend(missing.iter().map(missing_problem)),
        Err(other) => problems.push(other.chain().to_string()),
        Ok(_) => {}
    }
    for note in &preflight.notes {
        crate::text::stderr_line!("note: {note}");
    }
    Err(UserError::PreflightFailed { problems })
}

pub(crate) fn missing_problem(setting: &MissingSetting) -> String {
    format!("missing `{}`: {}", setting.key, setting.how_to_set)
}
