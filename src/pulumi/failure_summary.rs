use std::path::PathBuf;

use super::{ExitState, ProcessOutcome};
use crate::execute::FailureDetail;
use crate::plan::Operation;

/// Why a `pulumi` operation failed, built from what the CLI wrote: Pulumi's own words first (the
/// event log's error diagnostics, else the last `error:` line it printed: errors before the
/// engine starts, like a held lock, never reach the event log), then how the process ended.
pub fn failure_summary(operation: Operation, outcome: &ProcessOutcome, log_path: PathBuf) -> FailureDetail {
    let printed_error = outcome.output_tail.iter().rev().find_map(|line| line.trim_start().strip_prefix("error: "));
    let summary = match (&outcome.exit, outcome.progress.errors.first(), printed_error) {
        (ExitState::SpawnFailed(reason), _, _) => format!("could not start `pulumi`: {reason}"),
        (_, Some(first), _) => first.lines().next().unwrap_or(first).to_string(),
        (_, None, Some(printed)) => printed.to_string(),
        (exit, None, None) => format!("`pulumi {operation}` ended with {}", exit.describe()),
    };
    FailureDetail {
        summary,
        diagnostics: outcome.progress.errors.clone(),
        log_tail: outcome.output_tail.clone(),
        log_path: Some(log_path),
    }
}
