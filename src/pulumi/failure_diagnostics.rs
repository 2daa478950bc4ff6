//! The real error first: what Pulumi and the program said, not "exited with code 1".

use std::path::PathBuf;

use super::{ExitState, ProcessOutcome};
use crate::execute::FailureDetail;
use crate::plan::Operation;

/// The failure of one `pulumi` run, in order of authority: the event log's `error` diagnostics,
/// else the language host's stderr (`info#err`, where YAML and Python programs explain
/// themselves), else the `error:` lines Pulumi printed (errors before the engine starts, like a
/// held lock, never reach the event log), else the exit code.
pub(super) fn failure_diagnostics(operation: Operation, outcome: &ProcessOutcome) -> FailureDetail {
    let progress = &outcome.progress;
    let printed: Vec<String> = outcome
        .output_tail
        .iter()
        .filter_map(|line| line.trim_start().strip_prefix("error: "))
        .map(str::to_string)
        .collect();
    let diagnostics: Vec<String> = if !progress.errors.is_empty() {
        progress.errors.clone()
    } else if !progress.host_stderr.is_empty() {
        vec![progress.host_stderr.join("\n")]
    } else {
        printed.iter().rev().take(1).cloned().collect()
    };
    let first_line = diagnostics.first().and_then(|text| text.lines().find(|line| !line.trim().is_empty()));
    let command = operation.pulumi_command().join(" ");
    let summary = match (&outcome.exit, first_line) {
        (ExitState::SpawnFailed(reason), _) => format!("could not start `pulumi`: {reason}"),
        (_, Some(first)) => first.trim().to_string(),
        (exit, None) if outcome.cancelled => {
            format!("`pulumi {command}` stopped when the run was interrupted ({})", exit.describe())
        }
        (exit @ ExitState::Signaled(_), None) => format!("`pulumi {command}` was stopped by {}", exit.describe()),
        (exit, None) => format!("`pulumi {command}` ended with {}", exit.describe()),
    };
    FailureDetail { summary, diagnostics, log_tail: outcome.output_tail.clone(), log_path: None, hint: None }
}

/// [`failure_diagnostics`] with the project's log file named, as reports show it.
pub(crate) fn failure_summary(operation: Operation, outcome: &ProcessOutcome, log_path: PathBuf) -> FailureDetail {
    FailureDetail { log_path: Some(log_path), ..failure_diagnostics(operation, outcome) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pulumi::{EventLogTail, OperationProgress};

    fn outcome_from(fixture: &str, tail: &[&str]) -> ProcessOutcome {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-events").join(fixture);
        let mut progress = OperationProgress::default();
        EventLogTail::new(&path).finish().iter().for_each(|event| progress.apply(event));
        ProcessOutcome {
            exit: ExitState::Exited(1),
            progress,
            output_tail: tail.iter().map(|line| line.to_string()).collect(),
            cancelled: false,
        }
    }

    #[test]
    fn a_program_error_is_the_summary_and_the_diagnostics() {
        let detail = outcome_from("real__up-program-error.jsonl", &["Resources:", "    + 2 created", "Duration: 1s"]);
        assert_eq!(
            detail_summary(&detail),
            "Error reading file at path ./missing-file: open ./missing-file: no such file or directory"
        );
        assert!(detail_of(&detail).diagnostics[0].contains("on Pulumi.yaml line 10"));
    }

    #[test]
    fn the_language_hosts_stderr_explains_a_yaml_error() {
        let outcome = outcome_from("real__up-language-host-stderr.jsonl", &["Resources:", "Duration: 1s"]);
        let detail = failure_diagnostics(Operation::Up, &outcome);
        assert_eq!(detail.summary, "Error: resource, variable, or config value \"undefined\" not found");
        assert!(detail.diagnostics[0].contains("on Pulumi.yaml line 7"), "{:?}", detail.diagnostics);
    }

    #[test]
    fn a_printed_error_beats_the_exit_code() {
        let mut outcome =
            outcome_from("real__up-secret-output.jsonl", &["error: the stack is currently locked by 1 lock(s)"]);
        outcome.progress.errors.clear();
        let detail = failure_diagnostics(Operation::Up, &outcome);
        assert_eq!(detail.summary, "the stack is currently locked by 1 lock(s)");
    }

    fn detail_of(outcome: &ProcessOutcome) -> FailureDetail {
        failure_diagnostics(Operation::Up, outcome)
    }

    fn detail_summary(outcome: &ProcessOutcome) -> String {
        detail_of(outcome).summary
    }
}
