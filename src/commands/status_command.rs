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
    let _ = writeln!(out, "{:width$}  {:9}  {:10}  {:20}  run", "project", "last", "result", "ended");
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
                    "{:width$}  {:9}  {:10}  {:20}  {}",
                    project.path.as_str(),
                    run.operation,
                    record.result,
                    ended,
                    run.run_id
                );
            }
            None => {
                let _ = writeln!(out, "{:width$}  {:9}  {:10}  {:20}  -", project.path.as_str(), "-", "never run", "-");
            }
        }
    }
    Ok(ExitStatus::Success)
}
