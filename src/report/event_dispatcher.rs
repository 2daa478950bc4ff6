use tokio::sync::mpsc;

use super::{EtaTracker, Reporter, RunSummary};
use crate::execute::ExecutionEvent;
use crate::secrets::SecretMask;

/// Hands every event, masked, to every reporter, until the executor drops its sender.
/// With an `eta`, each start and end is followed by a fresh `RunEstimate`.
/// Returns the summary it collected along the way.
pub async fn dispatch_events(
    mut receiver: mpsc::Receiver<ExecutionEvent>,
    mut reporters: Vec<Box<dyn Reporter>>,
    mask: SecretMask,
    mut eta: Option<EtaTracker>,
) -> RunSummary {
    let mut summary = RunSummary::default();
    while let Some(event) = receiver.recv().await {
        let event = mask_event(event, &mask);
        let estimate = eta.as_mut().and_then(|eta| eta.on_event(&event));
        for event in std::iter::once(event).chain(estimate) {
            for reporter in reporters.iter_mut() {
                reporter.on_event(&event);
            }
            summary.on_event(&event);
        }
    }
    summary
}

fn mask_event(event: ExecutionEvent, mask: &SecretMask) -> ExecutionEvent {
    if mask.is_empty() {
        return event;
    }
    match event {
        ExecutionEvent::ProjectOutput { project, stream, line } => {
            ExecutionEvent::ProjectOutput { project, stream, line: mask.apply(&line) }
        }
        ExecutionEvent::ProjectNote { project, message } => {
            ExecutionEvent::ProjectNote { project, message: mask.apply(&message) }
        }
        ExecutionEvent::ProjectProgress { project, mut progress } => {
            progress.errors.iter_mut().for_each(|line| *line = mask.apply(line));
            progress.warnings.iter_mut().for_each(|line| *line = mask.apply(line));
            ExecutionEvent::ProjectProgress { project, progress }
        }
        ExecutionEvent::ProjectFinished(mut report) => {
            report.reason = report.reason.map(|reason| mask.apply(&reason));
            report.retried.iter_mut().for_each(|line| *line = mask.apply(line));
            if let Some(failure) = report.failure.as_mut() {
                failure.summary = mask.apply(&failure.summary);
                failure.diagnostics.iter_mut().for_each(|line| *line = mask.apply(line));
                failure.log_tail.iter_mut().for_each(|line| *line = mask.apply(line));
            }
            ExecutionEvent::ProjectFinished(report)
        }
        ExecutionEvent::KubeconfigInstalled(mut installed) => {
            installed.context = mask.apply(&installed.context);
            ExecutionEvent::KubeconfigInstalled(installed)
        }
        // Listed one by one, so a new event with text in it cannot pass unmasked unnoticed.
        event @ (ExecutionEvent::RunStarted(_)
        | ExecutionEvent::ProjectStarted { .. }
        | ExecutionEvent::Interrupting { .. }
        | ExecutionEvent::RunFinished { .. }
        | ExecutionEvent::RunEstimate { .. }) => event,
    }
}
