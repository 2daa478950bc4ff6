use std::time::Duration;

use super::{
    CancelLevel, Cancellation, EventSender, ExecutionEvent, LockRecheck, OperationOutcome, ProjectCli,
    ProjectLifecycle, StackTarget,
};
use crate::plan::Operation;
use crate::provider::Project;

/// The last outcome of an operation after its retries.
/// What Pulumi says when another update holds the stack's lock.
const LOCKED: &str = "the stack is currently locked";

/// What each attempt asks of the CLI: the operation, and for an `up` the fingerprint it keeps.
#[derive(Debug, Clone, Copy)]
pub(super) struct OperationRequest<'a> {
    pub operation: Operation,
    pub fingerprint: Option<&'a str>,
}

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
        request: OperationRequest<'_>,
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
            let mut delay = policy.delay_before(attempt);
            let mut cause = summary.clone();
            // A locked stack is not waited on blind: the holder is read again, and a lock whose
            // holder is gone (a killed `pulumi`, a zombie) is removed so the retry starts at once.
            if outcome.failure_text().contains(LOCKED) {
                match self.cli.recheck_stack_lock(project, stack).await {
                    LockRecheck::Released(what) => {
                        delay = Duration::ZERO;
                        cause = format!("{summary}; {what}");
                    }
                    LockRecheck::Held(holder) => cause = format!("{summary}, {holder}"),
                    LockRecheck::Unknown => {}
                }
            }
            let message = if delay.is_zero() {
                format!("attempt {} failed ({cause}); retrying now", attempt - 1)
            } else {
                format!("attempt {} failed ({cause}); retrying in {}", attempt - 1, humantime::format_duration(delay))
            };
            retried.push(summary);
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            let mut stop = cancellation.subscribe();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stop.wait_for(|level| *level >= CancelLevel::Graceful) => break,
            }
            let at = std::time::SystemTime::now();
            events.send(ExecutionEvent::ProjectStarted { project: project.path.clone(), attempt, at }).await;
            outcome = self
                .cli
                .run_operation(project, stack, request.operation, request.fingerprint, events, cancellation)
                .await;
        }
        Retried { outcome, attempts: attempt, retried }
    }
}
