use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use crate::cli::{HistorySettings, Settings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunStore};

/// `runner history`: one line per recorded run, newest last.
pub fn history(settings: &Settings, history: &HistorySettings) -> Result<ExitStatus> {
    let runs: Vec<_> = RunStore::new(&settings.root.state_dir())
        .runs()
        .into_iter()
        .filter(|run| history.stack.as_ref().is_none_or(|stack| &run.stack == stack))
        .collect();
    let skip = runs.len().saturating_sub(history.limit);
    let mut out = std::io::stdout().lock();
    for run in runs.iter().skip(skip) {
        let started = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(run.started.max(0.0)));
        let failed = run.projects.iter().filter(|p| p.result != ProjectState::Succeeded).count();
        let _ = writeln!(
            out,
            "{}  {started}  {:8} {:12} {:10} {:11} {} projects, {failed} not succeeded",
            run.run_id,
            run.operation,
            run.provider,
            run.stack,
            run.state,
            run.projects.len()
        );
    }
    Ok(ExitStatus::Success)
}
