use std::time::Duration;

use super::{Cancellation, EventSender, ExecutionEvent, ProjectCli, ProjectLifecycle, StackTarget, StepError};
use crate::hooks;
use crate::provider::Project;

impl<C: ProjectCli> ProjectLifecycle<C> {
    /// Waits for each of the project's readiness gates in turn; the first that does not pass
    /// within its timeout fails the project.
    pub(super) async fn wait_until_ready(
        &self,
        project: &Project,
        stack: &StackTarget,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Result<(), StepError> {
        for gate in &project.ready {
            let message = format!("waiting until ready: {}", gate.describe());
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            let outcome = hooks::wait_until_ready(gate, &stack.dir, &self.context.environment, cancellation).await;
            if !outcome.passed {
                return Err(StepError::NotReady(format!(
                    "{} did not pass within {} ({} in {}); last attempt: {}",
                    gate.describe(),
                    humantime::format_duration(gate.timeout),
                    crate::text::counted(outcome.attempts as usize, "attempt"),
                    humantime::format_duration(Duration::from_millis(outcome.elapsed.as_millis() as u64)),
                    outcome.last_attempt
                )));
            }
            let message = format!(
                "ready: {} passed after {}",
                gate.describe(),
                crate::text::counted(outcome.attempts as usize, "attempt")
            );
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
        }
        Ok(())
    }
}
