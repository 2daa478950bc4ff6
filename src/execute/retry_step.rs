use super::{
    CancelLevel, Cancellation, EventSender, ExecutionEvent, OperationOutcome, ProjectCli, ProjectLifecycle, StackTarget,
};
use crate::plan::Operation;
use crate::provider::Project;

/// The last outcome of an operation after its retries.
pub(super) struct Retried {
    pub outcome: OperationOutcome,
    pub attempts: u32,
    /// Why each attempt before the last one failed.
    pub retried: Vec<String>,
}

impl<C: ProjectCli> ProjectLifecycle<C> {
    /// Runs the operation again while it fails in a way the project's `retry` policy names,
    /// waiting its backoff between attempts; a cancel ends the wait and the retries.
    pub(super) async fn retry_while_failing(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        mut outcome: OperationOutcome,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Retried {
        let policy = project.retry.clone().unwrap_or_default();
        let mut attempt = 1;
        let mut retried: Vec<String> = Vec::new();
        while !outcome.succeeded && !outcome.cancelled && attempt < policy.attempts {
            if !policy.should_retry(&outcome.failure_text()) {
                break;
            }
            let summary = outcome.failure.as_ref().map(|failure| failure.summary.clone()).unwrap_or_default();
            attempt += 1;
            let delay = policy.delay_before(attempt);
            let message = format!(
                "attempt {} failed ({summary}); retrying in {}",
                attempt - 1,
                humantime::format_duration(delay)
            );
            retried.push(summary);
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            let mut stop = cancellation.subscribe();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stop.wait_for(|level| *level >= CancelLevel::Graceful) => break,
            }
            let at = std::time::SystemTime::now();
            events.send(ExecutionEvent::ProjectStarted { project: project.path.clone(), attempt, at }).await;
            outcome = self.cli.run_operation(project, stack, operation, events, cancellation).await;
        }
        Retried { outcome, attempts: attempt, retried }
    }
}
