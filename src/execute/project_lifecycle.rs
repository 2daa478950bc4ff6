use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::retry_step::OperationRequest;
use super::{
    CancelLevel, Cancellation, EventSender, ExecutionEvent, FailureDetail, OperationProgress, ProjectCli, ProjectJob,
    ProjectReport, ProjectResult, StackBusy, UnchangedRule,
};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::Operation;
use crate::provider::ProjectPath;
use crate::secrets::SecretMask;

/// What every project of a run shares, besides the CLI.
pub(crate) struct LifecycleContext {
    pub graph: Arc<ProjectGraph>,
    pub operation: Operation,
    /// The environment hooks and readiness gates run with (the CLI's own).
    pub environment: BTreeMap<String, String>,
    /// Stack outputs read for hooks are added to it.
    pub mask: SecretMask,
    /// Every project of the run's plan: a `destroy` never brings back up (as a prerequisite) a
    /// stack it removes.
    pub planned: Vec<ProjectPath>,
    /// Which dependents need not run, and what each successful `up` saw.
    pub unchanged: super::UnchangedRule,
}

/// One project's way through a run, as steps: prerequisites, stack creation, the operation and
/// its retries, then (after an `up`) hooks and readiness gates. The CLI does the work.
pub(crate) struct ProjectLifecycle<C: ProjectCli> {
    pub(super) cli: Arc<C>,
    pub(super) context: Arc<LifecycleContext>,
    /// One lock per prerequisite, so projects sharing it run it once.
    pub(super) prerequisite_gates: Arc<std::sync::Mutex<HashMap<ProjectPath, Arc<tokio::sync::Mutex<()>>>>>,
    /// When each project last succeeded with an `up` in this run.
    pub(super) succeeded_in_this_run: Arc<std::sync::Mutex<HashMap<ProjectPath, SystemTime>>>,
    /// The stacks operated on right now: one operation per stack at a time.
    pub(super) busy: StackBusy,
    /// Stack folders a `destroy` of this run removed: no prerequisite brings them back.
    pub(super) destroyed_in_this_run: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
}

impl<C: ProjectCli> Clone for ProjectLifecycle<C> {
    fn clone(&self) -> Self {
        Self {
            cli: Arc::clone(&self.cli),
            context: Arc::clone(&self.context),
            prerequisite_gates: Arc::clone(&self.prerequisite_gates),
            succeeded_in_this_run: Arc::clone(&self.succeeded_in_this_run),
            busy: self.busy.clone(),
            destroyed_in_this_run: Arc::clone(&self.destroyed_in_this_run),
        }
    }
}

impl<C: ProjectCli> ProjectLifecycle<C> {
    pub(crate) fn new(cli: C, context: LifecycleContext) -> Self {
        Self {
            cli: Arc::new(cli),
            context: Arc::new(context),
            prerequisite_gates: Arc::default(),
            succeeded_in_this_run: Arc::default(),
            busy: StackBusy::default(),
            destroyed_in_this_run: Arc::default(),
        }
    }
}

impl<C: ProjectCli> ProjectJob for ProjectLifecycle<C> {
    fn run(
        &self,
        node: NodeIndex,
        events: EventSender,
        cancellation: Cancellation,
    ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send + 'static>> {
        let lifecycle = self.clone();
        Box::pin(async move {
            let operation = lifecycle.context.operation;
            let context = Arc::clone(&lifecycle.context);
            let mut report = lifecycle.run_project(node, operation, events, cancellation.clone()).await;
            let hints = &context.graph.project(node).failure_hints;
            report.failure = report.failure.map(|failure| failure.with_hint_from(hints));
            // A step that fails after the runner asked everything to stop failed because of the stop.
            if report.result == ProjectResult::Failed && cancellation.level() >= CancelLevel::Graceful {
                report.result = ProjectResult::Cancelled;
                report.reason = Some("cancelled while running".into());
            }
            report
        })
    }
}

/// Fills a project's report as its steps end.
struct ReportBuilder {
    project: ProjectPath,
    started: SystemTime,
    clock: Instant,
    operation: Option<Operation>,
    attempts: u32,
    retried: Vec<String>,
}

impl ReportBuilder {
    fn finish(
        &self,
        result: ProjectResult,
        progress: &OperationProgress,
        reason: Option<String>,
        failure: Option<FailureDetail>,
    ) -> ProjectReport {
        ProjectReport {
            project: self.project.clone(),
            result,
            started: Some(self.started),
            duration: self.clock.elapsed(),
            changes: progress.changes(),
            reason,
            failure,
            attempts: self.attempts,
            retried: self.retried.clone(),
            operation: self.operation,
        }
    }

    fn failed(&self, progress: &OperationProgress, failure: FailureDetail) -> ProjectReport {
        self.finish(ProjectResult::Failed, progress, None, Some(failure))
    }
}

impl<C: ProjectCli> ProjectLifecycle<C> {
    /// Boxed: a prerequisite runs through here too, from inside another project's run.
    pub(super) fn run_project(
        self,
        node: NodeIndex,
        operation: Operation,
        events: EventSender,
        cancellation: Cancellation,
    ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send + 'static>> {
        Box::pin(async move { self.run_steps(node, operation, events, cancellation).await })
    }

    async fn run_steps(
        self,
        node: NodeIndex,
        operation: Operation,
        events: EventSender,
        cancellation: Cancellation,
    ) -> ProjectReport {
        let project = self.context.graph.project(node).clone();
        let as_prerequisite = operation != self.context.operation;
        let graph = &self.context.graph;
        // Declared dependencies and, by the cluster rule, the cluster it is deployed into.
        let upstream: Vec<ProjectPath> =
            crate::plan::waited_for(graph, node).into_iter().map(|node| graph.project(node).path.clone()).collect();
        let rule = &self.context.unchanged;
        let compared = rule.compared_upstream(&project.path, &upstream);
        let reads = rule.reads(&project.path);
        let mut fingerprint = match operation {
            Operation::Up => self.cli.up_fingerprint(&project, &compared, reads).await,
            _ => None,
        };
        if operation == Operation::Up && !as_prerequisite && rule.may_skip(&project.path, &upstream) {
            // Proven from the backend now, whoever updated the stack last: never from this
            // checkout's memory of what it saw.
            if let (Some(now), Some(deployed)) = (&fingerprint, self.cli.deployed_fingerprint(&project).await) {
                if *now == deployed {
                    let reason = UnchangedRule::reason(&compared);
                    return ProjectReport::not_run(project.path.clone(), ProjectResult::Unchanged, reason);
                }
            }
        }
        let started = SystemTime::now();
        events.send(ExecutionEvent::ProjectStarted { project: project.path.clone(), attempt: 1, at: started }).await;
        let mut report = ReportBuilder {
            project: project.path.clone(),
            started,
            clock: Instant::now(),
            operation: as_prerequisite.then_some(operation),
            attempts: 1,
            retried: Vec::new(),
        };
        let nothing = OperationProgress::default();
        for prerequisite in &project.prerequisites {
            if let Err(err) = self.ensure_prerequisite(&project, prerequisite, &events, &cancellation).await {
                return report.failed(&nothing, step_failure(&err));
            }
        }
        // A prerequisite may have changed an upstream's outputs: the `up` keeps what it reads now.
        if operation == Operation::Up && !project.prerequisites.is_empty() {
            fingerprint = self.cli.up_fingerprint(&project, &compared, reads).await;
        }
        let request = OperationRequest { operation, fingerprint: fingerprint.as_deref() };
        // Prerequisites first, with nothing held: a prerequisite may run on this very stack.
        let _hold = match self.busy.try_hold(project.stack_folder()) {
            Some(hold) => hold,
            None => {
                let message = format!(
                    "waiting: stack of `{}` is busy with another operation of this run",
                    project.stack_folder()
                );
                events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
                let mut stop = cancellation.subscribe();
                tokio::select! {
                    hold = self.busy.hold(project.stack_folder()) => hold,
                    _ = stop.wait_for(|level| *level >= CancelLevel::Graceful) => {
                        let reason = Some("cancelled while waiting for its stack".into());
                        return report.finish(ProjectResult::Cancelled, &nothing, reason, None);
                    }
                }
            }
        };
        let stack = match self.cli.locate_stack(&project).await {
            Ok(stack) => stack,
            Err(err) => return report.failed(&nothing, step_failure(&err)),
        };
        if stack.exists == Some(false) {
            if operation == Operation::Destroy {
                self.note_destroyed(&project);
                let reason = format!("stack `{}` does not exist; nothing to {operation}", stack.name);
                return report.finish(ProjectResult::Succeeded, &nothing, Some(reason), None);
            }
            if matches!(operation, Operation::Refresh | Operation::Drift) {
                return report.finish(ProjectResult::NotDeployed, &nothing, Some(not_deployed(&stack.name)), None);
            }
            if let Err(failure) = self.cli.create_stack(&project, &stack, operation, &events, &cancellation).await {
                return report.failed(&nothing, failure);
            }
        }
        // A destroyed stack is kept, empty: nothing in it can drift or be refreshed.
        if stack.resources == Some(0) && matches!(operation, Operation::Refresh | Operation::Drift) {
            let reason = format!("stack `{}` holds no resources: destroyed, or never updated", stack.name);
            return report.finish(ProjectResult::NotDeployed, &nothing, Some(reason), None);
        }
        let mut outcome =
            self.cli.run_operation(&project, &stack, operation, request.fingerprint, &events, &cancellation).await;
        // A backend that cannot tell whether a stack exists says so when the operation runs.
        let missing = stack.exists.is_none() && !outcome.succeeded && outcome.stack_missing;
        if missing && matches!(operation, Operation::Refresh | Operation::Drift) {
            return report.finish(ProjectResult::NotDeployed, &nothing, Some(not_deployed(&stack.name)), None);
        }
        if missing && operation != Operation::Destroy {
            if let Err(failure) = self.cli.create_stack(&project, &stack, operation, &events, &cancellation).await {
                return report.failed(&outcome.progress, failure);
            }
            outcome =
                self.cli.run_operation(&project, &stack, operation, request.fingerprint, &events, &cancellation).await;
        }
        let retries = self.retry_while_failing(&project, &stack, request, outcome, &events, &cancellation).await;
        let outcome = retries.outcome;
        report.attempts = retries.attempts;
        report.retried = retries.retried;

        // Once the runner signalled the CLI, its exit code proves nothing: a cancelled `destroy`
        // winds down gracefully and exits 0 with most resources still there.
        if outcome.cancelled {
            let reason = Some("cancelled while running".into());
            return report.finish(ProjectResult::Cancelled, &outcome.progress, reason, outcome.failure.clone());
        }
        if !outcome.succeeded {
            return report.failed(&outcome.progress, outcome.failure.clone().unwrap_or_default());
        }
        if operation == Operation::Up && !as_prerequisite {
            if !project.on_success.is_empty() {
                let secret_outputs = outcome.progress.secret_outputs.as_deref();
                if let Err(err) = self.run_hooks(&project, &stack, secret_outputs, &events, &cancellation).await {
                    return report.failed(&outcome.progress, step_failure(&err));
                }
            }
            if let Err(err) = self.wait_until_ready(&project, &stack, &events, &cancellation).await {
                return report.failed(&outcome.progress, step_failure(&err));
            }
        }
        if operation == Operation::Up {
            self.record_success(&project.path);
        }
        if operation == Operation::Destroy {
            self.note_destroyed(&project);
        }
        let mocked = (!outcome.mocked.is_empty())
            .then(|| format!("with mock outputs of {} (never deployed)", outcome.mocked.join(", ")));
        report.finish(ProjectResult::Succeeded, &outcome.progress, mocked, None)
    }

    /// Its stack is gone (or never was): no prerequisite of this destroy brings it back.
    fn note_destroyed(&self, project: &crate::provider::Project) {
        if let Ok(mut destroyed) = self.destroyed_in_this_run.lock() {
            destroyed.insert(project.stack_folder().to_string());
        }
    }

    pub(super) fn record_success(&self, project: &ProjectPath) {
        if let Ok(mut done) = self.succeeded_in_this_run.lock() {
            done.insert(project.clone(), SystemTime::now());
        }
    }
}

fn not_deployed(stack: &str) -> String {
    format!("stack `{stack}` does not exist: never deployed, or removed")
}

pub(super) fn simple_failure(message: String) -> FailureDetail {
    FailureDetail { summary: message, ..Default::default() }
}

/// A failed step's summary: its message and every cause, once.
fn step_failure(err: &dyn std::error::Error) -> FailureDetail {
    simple_failure(crate::error::ErrorChain(err).to_string())
}
