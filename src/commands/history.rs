use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use crate::cli::{HistorySettings, Settings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunRecord, RunState, RunStore};
use crate::text::counted;

/// `runner history`: a header, then one line per recorded run, newest last, each with its result.
pub(crate) fn history(settings: &Settings, history: &HistorySettings) -> Result<ExitStatus> {
    let state_dir = settings.root.state_dir();
    let runs: Vec<_> = RunStore::new(&state_dir)
        .runs()
        .into_iter()
        .filter(|run| history.stack.as_ref().is_none_or(|stack| &run.stack == stack))
        .collect();
    if runs.is_empty() {
        let which = history.stack.as_ref().map(|stack| format!(" of stack `{stack}`")).unwrap_or_default();
        let shown = settings.root.relative(&state_dir).join("history");
        crate::text::stderr_line!(
            "no runs{which} recorded yet in `{}`: `up`, `preview`, `refresh`, `destroy` and `drift` record theirs",
            shown.display()
        );
        return Ok(ExitStatus::Success);
    }
    let skip = runs.len().saturating_sub(history.limit);
    let rows: Vec<HistoryRow> = runs.iter().skip(skip).map(HistoryRow::of).collect();
    let stdout = console::Term::stdout();
    let columns = stdout.is_term().then(|| usize::from(stdout.size().1));
    let _ = std::io::stdout().lock().write_all(history_table(&rows, columns).as_bytes());
    Ok(ExitStatus::Success)
}

/// One run as `history` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HistoryRow {
    run_id: String,
    started: String,
    operation: String,
    provider: String,
    stack: String,
    result: String,
    projects: String,
}

impl HistoryRow {
    fn of(run: &RunRecord) -> Self {
        let started = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(run.started.max(0.0)));
        // A runner killed with `kill -9` cannot mark its run: a dead holder on this host says it.
        let state = if run.abandoned() { RunState::Interrupted } else { run.state };
        let failed = run.projects.iter().filter(|p| p.result == ProjectState::Failed).count();
        let not_deployed = run.projects.iter().filter(|p| p.result == ProjectState::NotDeployed).count();
        let unfinished = run.projects.iter().filter(|p| p.result.needs_resume()).count();
        let result = match state {
            RunState::Running => "running".to_string(),
            RunState::Interrupted => "interrupted".to_string(),
            RunState::Finished if failed > 0 => format!("failed ({failed} of {})", run.projects.len()),
            RunState::Finished if unfinished > 0 => format!("incomplete ({unfinished} not run)"),
            RunState::Finished if not_deployed > 0 => {
                format!("not deployed ({not_deployed} of {})", run.projects.len())
            }
            RunState::Finished => "succeeded".to_string(),
        };
        Self {
            run_id: run.run_id.clone(),
            started: started.to_string(),
            operation: run.operation.to_string(),
            provider: run.provider.clone(),
            stack: run.stack.clone(),
            result: format!("{result}{}", super::drift_status::drift_suffix(run)),
            projects: counted(run.projects.len(), "project"),
        }
    }
}

/// The rows under a header, each column as wide as its widest cell. On a terminal `columns`
/// wide, columns go whole until the rest fits: `started` (the run id holds the time), then
/// `provider`, then `projects`; then the result is cut at its end. The run id is never cut.
fn history_table(rows: &[HistoryRow], columns: Option<usize>) -> String {
    let header = ["run", "started", "operation", "provider", "stack", "result", "projects"];
    let cells: Vec<[&str; 7]> = rows
        .iter()
        .map(|row| {
            [&row.run_id, &row.started, &row.operation, &row.provider, &row.stack, &row.result, &row.projects]
                .map(String::as_str)
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|column| {
            cells.iter().map(|row| row[column].chars().count()).chain([header[column].len()]).max().unwrap_or(0)
        })
        .collect();
    let total = |kept: &[usize]| kept.iter().map(|&column| widths[column] + 2).sum::<usize>().saturating_sub(2);
    let mut kept: Vec<usize> = (0..header.len()).collect();
    for dropped in [1, 3, 6] {
        if columns.is_some_and(|columns| total(&kept) > columns) {
            kept.retain(|&column| column != dropped);
        }
    }
    let line = |row: [&str; 7]| {
        let mut text = String::new();
        for (position, &column) in kept.iter().enumerate() {
            let cell = row[column];
            if position + 1 == kept.len() {
                let room = columns.map_or(usize::MAX, |columns| columns.saturating_sub(text.chars().count()));
                text.push_str(&crate::text::fit_reason(cell, room));
            } else {
                text.push_str(&format!("{cell:width$}  ", width = widths[column]));
            }
        }
        format!("{}\n", text.trim_end())
    };
    std::iter::once(line(header)).chain(cells.into_iter().map(line)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run_id: &str, operation: &str, result: &str, projects: usize) -> HistoryRow {
        HistoryRow {
            run_id: run_id.into(),
            started: "2026-11-24T01:55:00Z".into(),
            operation: operation.into(),
            provider: "local".into(),
            stack: "dev".into(),
            result: result.into(),
            projects: counted(projects, "project"),
        }
    }

    #[test]
    fn history_lists_each_run_with_its_result_under_a_header() {
        let rows = [
            row("20261124T015500Z-101", "up", "succeeded", 6),
            row("20261124T015800Z-102", "up", "failed (1 of 6)", 6),
            row("20261124T020100Z-103", "preview", "interrupted", 1),
            row("20261124T020300Z-104", "drift", "succeeded, 1 drifted", 6),
        ];
        insta::assert_snapshot!(history_table(&rows, None));
        for columns in [60, 80, 120] {
            for line in history_table(&rows, Some(columns)).lines() {
                assert!(line.chars().count() <= columns, "{line:?} at {columns}");
                assert!(line.starts_with("run") || line.starts_with("2026"), "{line:?}");
            }
        }
        let narrow = history_table(&rows, Some(80));
        assert!(narrow.contains("20261124T020300Z-104") && narrow.contains("succeeded, 1 drifted"), "{narrow}");
    }
}
