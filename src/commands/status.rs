use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use super::LoadedProvider;
use crate::cli::{Settings, StackSettings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunStore};

/// `runner status`: for every project of the provider, its last recorded operation and result.
pub fn status(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let runs = RunStore::new(&settings.root.state_dir()).runs_of(&loaded.provider.name, &stack.stack);
    let width = loaded.graph.projects().iter().map(|p| p.path.as_str().len()).max().unwrap_or(7).max(7);
    let mut out = std::io::stdout().lock();
    let _ =
        writeln!(out, "{:width$}  {:9}  {:10}  {:20}  {:24}  last drift", "project", "last", "result", "ended", "run");
    for project in loaded.graph.projects() {
        let last = runs.iter().rev().find_map(|run| {
            run.project(project.path.as_str())
                .filter(|record| record.result != ProjectState::Pending)
                .map(|record| (run, record))
        });
        match last {
            Some((run, record)) => {
                let ended = record
                    .ended
                    .map(|at| {
                        humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(at.max(0.0))).to_string()
                    })
                    .unwrap_or_else(|| "-".into());
                let _ = writeln!(
                    out,
                    "{:width$}  {:9}  {:10}  {:20}  {:24}  {}",
                    project.path.as_str(),
                    run.operation,
                    record.result,
                    ended,
                    run.run_id,
                    super::drift_status::last_drift(&runs, project.path.as_str())
                );
            }
            None => match backend_status(settings, stack, &loaded, &project.path) {
                // This copy never ran it; another one sharing the backend may have.
                Some((operation, result, ended)) => {
                    let _ = writeln!(
                        out,
                        "{:width$}  {:9}  {:10}  {:20}  {:24}  (backend)",
                        project.path.as_str(),
                        operation,
                        result,
                        ended,
                        "-"
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "{:width$}  {:9}  {:10}  {:20}  {:24}  -",
                        project.path.as_str(),
                        "-",
                        "never run",
                        "-",
                        "-"
                    );
                }
            },
        }
    }
    Ok(ExitStatus::Success)
}

/// The newest entry of the project's stack history on a shared backend, as `(operation, result, ended)`.
fn backend_status(
    settings: &Settings,
    stack: &StackSettings,
    loaded: &LoadedProvider,
    project: &crate::provider::ProjectPath,
) -> Option<(String, String, String)> {
    let environment = crate::pulumi::ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    if !crate::pulumi::stack_history::backend_is_shared(&environment) {
        return None;
    }
    // The `pulumi` runs use: the run's PATH, not the runner's.
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment).ok()?;
    let history =
        crate::pulumi::stack_history::project_history(&pulumi, &environment, &loaded.provider, project, &stack.stack)?;
    let latest = history.latest()?;
    let ended = latest.ended.map(|at| humantime::format_rfc3339_seconds(at).to_string()).unwrap_or_else(|| "-".into());
    Some((latest.kind.as_str().to_string(), latest.result.as_str().to_string(), ended))
}
