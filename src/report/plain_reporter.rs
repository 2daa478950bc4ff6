use std::io::Write;

use super::run_summary::format_duration;
use super::Reporter;
use crate::execute::{ExecutionEvent, ProjectResult};

/// For CI logs and pipes: one timestamped line per state change, no spinners, no colour.
pub(crate) struct PlainReporter {
    verbose: bool,
    /// How many had ended at the last printed estimate.
    last_estimate_at: usize,
}

impl PlainReporter {
    pub(crate) fn new(verbose: bool) -> Self {
        Self { verbose, last_estimate_at: usize::MAX }
    }
}

fn timestamp() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(&time::macros::format_description!("[hour]:[minute]:[second]")).unwrap_or_default()
}

impl Reporter for PlainReporter {
    fn name(&self) -> &'static str {
        "plain reporter"
    }

    fn on_event(&mut self, event: &ExecutionEvent) {
        // After each end a new estimate is news; after a start it rarely changes.
        if let ExecutionEvent::RunEstimate { ended, .. } = event {
            if *ended == self.last_estimate_at {
                return;
            }
            self.last_estimate_at = *ended;
        }
        if let Some(line) = self.line(event, &timestamp()) {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
}

impl PlainReporter {
    /// The line an event prints, if any: state changes carry `timestamp`, project output
    /// (`--verbose`) is prefixed with its project instead.
    pub(crate) fn line(&self, event: &ExecutionEvent, timestamp: &str) -> Option<String> {
        let line = match event {
            ExecutionEvent::RunStarted(info) => format!(
                "{} {} of `{}` on stack `{}` (parallelism {}), logs in {}",
                info.operation,
                crate::text::counted(info.projects.len(), "project"),
                info.provider,
                info.stack,
                info.parallelism.min(info.projects.len()).max(1),
                // As the footer's `logs:` shows it: relative to where the user stands.
                crate::error::shown_path(&info.log_dir)
            ),
            ExecutionEvent::ProjectStarted { project, attempt, .. } if *attempt > 1 => {
                format!("{project} started (attempt {attempt})")
            }
            ExecutionEvent::ProjectStarted { project, .. } => format!("{project} started"),
            ExecutionEvent::ProjectNote { project, message } => format!("{project} {message}"),
            ExecutionEvent::ProjectOutput { project, line, .. } if self.verbose => {
                return Some(format!("[{project}] {line}"));
            }
            ExecutionEvent::ProjectFinished(report) => {
                let mut line = format!("{} {}", report.project, report.result.as_str());
                if report.result == ProjectResult::Succeeded || report.result == ProjectResult::Failed {
                    line.push_str(&format!(" in {}", format_duration(report.duration)));
                }
                if let Some(reason) = &report.reason {
                    line.push_str(&format!(": {reason}"));
                }
                if let Some(failure) = &report.failure {
                    line.push_str(&format!(": {}", failure.summary));
                }
                line
            }
            ExecutionEvent::Interrupting { kill: false } => {
                "interrupted: cancelling running projects (Ctrl-C again to kill them)".into()
            }
            ExecutionEvent::Interrupting { kill: true } => "interrupted again: killing running projects".into(),
            // Nothing left, or less than a tenth of a second: no estimate to give.
            ExecutionEvent::RunEstimate { remaining, ended, total }
                if ended >= total || remaining.as_secs_f64() < 0.1 =>
            {
                return None
            }
            ExecutionEvent::RunEstimate { remaining, ended, total } => {
                format!("eta: about {} left ({ended} of {total} done)", format_duration(*remaining))
            }
            _ => return None,
        };
        Some(format!("{timestamp} {line}"))
    }
}
