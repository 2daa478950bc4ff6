use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use crate::cli::{HistorySettings, Settings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunState, RunStore};

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
        // A runner killed with `kill -9` cannot mark its run: a dead holder on this host says it.
        let abandoned = run.state == RunState::Running
            && run.host == crate::history::host_name()
            && !crate::history::process_alive(run.pid);
        let state = if abandoned { RunState::Interrupted } else { run.state };
        let _ = writeln!(
            out,
            "{}  {started}  {:8} {:12} {:10} {:11} {} projects, {failed} not succeeded{}",
            run.run_id,
            run.operation,
            run.provider,
            run.stack,
            state.as_str(),
            run.projects.len(),
            super::drift_status::drift_suffix(run)
        );
    }
    Ok(ExitStatus::Success)
}
