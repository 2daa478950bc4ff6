//! Words a run prints that must say something true: no `about 0.0s left`, no `up to 4 at once`
//! for one project.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::{PlainReporter, Reporter, TerminalReporter};
use crate::execute::{ExecutionEvent, RunInfo};
use crate::plan::Operation;
use crate::provider::ProjectPath;

/// A run of `projects` on `local`/`dev`, for the reporters' tests.
pub(super) fn info(projects: &[&str]) -> RunInfo {
    RunInfo {
        run_id: "r".into(),
        provider: "local".into(),
        stack: "dev".into(),
        operation: Operation::Up,
        projects: projects.iter().map(|p| ProjectPath::new(p)).collect(),
        parallelism: 4,
        log_dir: PathBuf::from(".runner/logs/r"),
        started: SystemTime::UNIX_EPOCH,
        recovered_locks: Vec::new(),
    }
}

#[test]
fn an_estimate_of_nothing_left_is_not_printed() {
    let plain = PlainReporter::new(false);
    let done = ExecutionEvent::RunEstimate { remaining: Duration::ZERO, ended: 6, total: 6 };
    assert_eq!(plain.line(&done, "t"), None);
    let rounding = ExecutionEvent::RunEstimate { remaining: Duration::from_millis(20), ended: 5, total: 6 };
    assert_eq!(plain.line(&rounding, "t"), None);
    let some = ExecutionEvent::RunEstimate { remaining: Duration::from_secs(3), ended: 5, total: 6 };
    assert!(plain.line(&some, "t").unwrap().contains("about 3.0s left"));
}

#[test]
fn one_project_runs_alone_without_a_word_on_parallelism() {
    let terminal = TerminalReporter::hidden(200);
    assert_eq!(terminal.header(&info(&["a"])), "up 1 project of `local` on stack `dev`");
    assert_eq!(terminal.header(&info(&["a", "b"])), "up 2 projects of `local` on stack `dev`, up to 2 at once");
    let plain = PlainReporter::new(false);
    let line = plain.line(&ExecutionEvent::RunStarted(info(&["a"])), "t").unwrap();
    assert!(line.contains("(parallelism 1)"), "{line}");
}

/// A preview did nothing yet: its table says what `up` would do, in Pulumi's preview words, as
/// its live lines do; a drift check says which resources are in sync.
#[test]
fn the_table_of_a_preview_or_a_drift_check_says_what_would_change() {
    use crate::execute::{ProjectReport, ProjectResult};
    for (operation, header) in [
        (Operation::Preview, "to create to update to delete unchanged"),
        (Operation::Drift, "to create to update to delete   in sync"),
        (Operation::Up, "created updated deleted unchanged"),
    ] {
        let mut summary = super::RunSummary::default();
        summary.on_event(&ExecutionEvent::RunStarted(RunInfo { operation, ..info(&["net"]) }));
        let mut report = ProjectReport::not_run(ProjectPath::new("net"), ProjectResult::Succeeded, String::new());
        report.changes.created = 12;
        summary.on_event(&ExecutionEvent::ProjectFinished(report));
        let table = summary.table();
        let first = table.lines().next().unwrap();
        assert!(first.ends_with(header), "{operation}: {table}");
        let row = table.lines().nth(1).unwrap();
        // Each count sits under the end of its word.
        let column = if operation == Operation::Up { "created" } else { "to create" };
        let at = first.find(column).unwrap() + column.len();
        assert_eq!(&row[at - 2..at], "12", "{operation}: {table}");
    }
}
