use std::sync::Arc;
use std::time::Duration;

use super::{Cancellation, EventSender, ExecutionEvent, ProjectCli, ProjectLifecycle, ProjectResult, StepError};
use crate::plan::Operation;
use crate::provider::{Prerequisite, Project};

impl<C: ProjectCli> ProjectLifecycle<C> {
    /// Runs `prerequisite` first (as an `up`) unless it succeeded within its window, in this run
    /// or an earlier one according to the CLI's history. One at a time per prerequisite.
    pub(super) async fn ensure_prerequisite(
        &self,
        project: &Project,
        prerequisite: &Prerequisite,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Result<(), StepError> {
        let gate = {
            let mut gates = self.prerequisite_gates.lock().map_err(|_| StepError::Internal("poisoned lock".into()))?;
            Arc::clone(gates.entry(prerequisite.project.clone()).or_default())
        };
        let _one_at_a_time = gate.lock().await;
        if let Some(removed) = self.removed_by_this_destroy(&prerequisite.project) {
            let message = format!(
                "prerequisite `{}` not run: this destroy removes its stack (`{removed}`)",
                prerequisite.project
            );
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            return Ok(());
        }
        let window = prerequisite.succeeded_within;
        let in_this_run =
            self.succeeded_in_this_run.lock().ok().and_then(|done| done.get(&prerequisite.project).copied());
        let mut last = in_this_run.or_else(|| self.cli.last_success(&prerequisite.project, Operation::Up));
        let mut source = "";
        if last.and_then(|at| at.elapsed().ok()).is_none_or(|age| age > window) {
            // Another machine may have run it on a shared backend: ask the CLI's own history.
            if let Some(shared) = self.cli.last_shared_success(&prerequisite.project, Operation::Up).await {
                if last.is_none_or(|local| shared > local) {
                    last = Some(shared);
                    source = " (stack history in the backend)";
                }
            }
        }
        let age = last.and_then(|at| at.elapsed().ok());
        if let Some(age) = age.filter(|age| *age <= window) {
            let message = format!(
                "prerequisite `{}` succeeded {} ago, within {}{source}",
                prerequisite.project,
                humantime::format_duration(Duration::from_secs(age.as_secs())),
                humantime::format_duration(window)
            );
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            return Ok(());
        }
        let message = format!(
            "prerequisite `{}` has not succeeded within {}: running it first",
            prerequisite.project,
            humantime::format_duration(window)
        );
        events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
        let node = self
            .context
            .graph
            .node_of(&prerequisite.project)
            .ok_or_else(|| StepError::UnknownPrerequisite(prerequisite.project.to_string()))?;
        let report = self.clone().run_project(node, Operation::Up, events.clone(), cancellation.clone()).await;
        let result = report.result;
        let summary = report.failure.as_ref().map(|failure| failure.summary.clone()).unwrap_or_default();
        events.send(ExecutionEvent::ProjectFinished(report)).await;
        if result == ProjectResult::Succeeded {
            self.record_success(&prerequisite.project);
            Ok(())
        } else {
            Err(StepError::Prerequisite { project: prerequisite.project.to_string(), result: result.as_str(), summary })
        }
    }

    /// During a `destroy`, why `prerequisite` must not run: this destroy removes it (it is
    /// planned), or already removed the stack it runs on (a project sharing its `dir`).
    /// Bringing either up would undo this run's own destroy, or race it. A prerequisite on a
    /// stack that stays, or whose destroy is still to come, runs as ever: a destroy may need
    /// fresh credentials in that very stack first.
    fn removed_by_this_destroy(&self, prerequisite: &crate::provider::ProjectPath) -> Option<String> {
        if self.context.operation != Operation::Destroy {
            return None;
        }
        if self.context.planned.contains(prerequisite) {
            return Some(prerequisite.to_string());
        }
        let graph = &self.context.graph;
        let folder = graph.project(graph.node_of(prerequisite)?).stack_folder().to_string();
        let destroyed = self.destroyed_in_this_run.lock().ok()?;
        destroyed.contains(&folder).then_some(folder)
    }
}
