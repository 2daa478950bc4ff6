use std::sync::Arc;
use std::time::Duration;

use super::{Cancellation, EventSender, ExecutionEvent, ProjectCli, ProjectLifecycle, ProjectResult};
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
    ) -> Result<(), String> {
        let gate = {
            let mut gates = self.prerequisite_gates.lock().map_err(|_| "internal error: poisoned lock".to_string())?;
            Arc::clone(gates.entry(prerequisite.project.clone()).or_default())
        };
        let _one_at_a_time = gate.lock().await;
        let window = prerequisite.succeeded_within;
        let in_this_run =
            self.succeeded_in_this_run.lock().ok().and_then(|done| done.get(&prerequisite.project).copied());
        let last = in_this_run.or_else(|| self.cli.last_success(&prerequisite.project, Operation::Up));
        let age = last.and_then(|at| at.elapsed().ok());
        if let Some(age) = age.filter(|age| *age <= window) {
            let message = format!(
                "prerequisite `{}` succeeded {} ago, within {}",
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
            .ok_or_else(|| format!("unknown prerequisite `{}`", prerequisite.project))?;
        let report = self.clone().run_project(node, Operation::Up, events.clone(), cancellation.clone()).await;
        let result = report.result;
        let summary = report.failure.as_ref().map(|failure| failure.summary.clone()).unwrap_or_default();
        events.send(ExecutionEvent::ProjectFinished(report)).await;
        if result == ProjectResult::Succeeded {
            self.record_success(&prerequisite.project);
            Ok(())
        } else {
            Err(format!("prerequisite `{}` {}: {summary}", prerequisite.project, result.as_str()))
        }
    }
}
