//! Words a run prints that must say something true: no `about 0.0s left`, no `up to 4 at once`
//! for one project.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::{PlainReporter, TerminalReporter};
use crate::execute::{ExecutionEvent, RunInfo};
use crate::plan::Operation;
use crate::provider::ProjectPath;

fn info(projects: &[&str]) -> RunInfo {
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
