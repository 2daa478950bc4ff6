//! How `status` and `history` describe drift runs.

use crate::history::{ProjectRecord, ProjectState, RunRecord};
use crate::plan::Operation;

/// Whether a drift run found drift in this project's record.
fn drifted(record: &ProjectRecord) -> bool {
    let changes = &record.changes;
    !record.drifted.is_empty() || changes.created + changes.updated + changes.deleted + changes.replaced > 0
}

/// The last `drift` result of a project: `drifted (2): update aws:... x, ...`, `no drift`, or `-`.
/// A verdict older than the stack's newest update in the backend (`changed`, seconds since the
/// epoch) says so: it no longer describes the stack.
pub(super) fn last_drift(runs: &[RunRecord], project: &str, changed: Option<f64>) -> String {
    let last = runs.iter().rev().filter(|run| run.operation == Operation::Drift).find_map(|run| {
        run.project(project).filter(|record| record.result != ProjectState::Pending).map(|record| (run, record))
    });
    let Some((run, record)) = last else { return "-".into() };
    // Pulumi names its records in nanoseconds; the run's end is its own clock, to the millisecond.
    if changed.zip(record.ended.or(run.ended)).is_some_and(|(changed, ended)| changed > ended + 1.0) {
        return format!("stale: the stack changed after ({})", run.run_id);
    }
    let verdict = match record.result {
        ProjectState::Succeeded if drifted(record) => {
            let count = record.drifted.len().max(1);
            let names: Vec<&str> = record.drifted.iter().map(String::as_str).take(3).collect();
            let more = if record.drifted.len() > 3 { ", ..." } else { "" };
            format!("drifted ({count}): {}{more}", names.join(", "))
        }
        ProjectState::Succeeded => "no drift".into(),
        other => format!("drift check {other}"),
    };
    format!("{verdict} ({})", run.run_id)
}

/// For `history`: `, 2 drifted` on drift runs.
pub(super) fn drift_suffix(run: &RunRecord) -> String {
    if run.operation != Operation::Drift {
        return String::new();
    }
    let count =
        run.projects.iter().filter(|record| record.result == ProjectState::Succeeded && drifted(record)).count();
    format!(", {count} drifted")
}
