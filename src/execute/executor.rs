use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::SystemTime;

use tokio::task::JoinSet;

use super::{CancelLevel, Cancellation, EventSender, ExecutionEvent, ProjectJob, ProjectReport, ProjectResult};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::{start_priority, ExecutionPlan};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Running,
    Done(ProjectResult),
}

/// Runs a plan: every project whose blockers succeeded starts, up to `parallelism` at once.
///
/// A failure skips what depends on it and lets independent branches go on; with `fail_fast`
/// it starts nothing new and cancels what runs. The executor only emits events; it never prints.
pub struct Executor<J: ProjectJob> {
    graph: Arc<ProjectGraph>,
    plan: ExecutionPlan,
    job: Arc<J>,
    parallelism: usize,
    fail_fast: bool,
}

impl<J: ProjectJob> Executor<J> {
    pub fn new(graph: Arc<ProjectGraph>, plan: ExecutionPlan, job: J, parallelism: usize, fail_fast: bool) -> Self {
        Self { graph, plan, job: Arc::new(job), parallelism: parallelism.max(1), fail_fast }
    }

    /// Returns one report per planned project, in the order they finished.
    pub async fn run(self, events: EventSender, cancellation: Cancellation) -> Vec<ProjectReport> {
        let mut states: BTreeMap<NodeIndex, State> =
            self.plan.steps.iter().map(|step| (step.node, State::Pending)).collect();
        let mut reports = Vec::with_capacity(states.len());
        let mut running: JoinSet<(NodeIndex, ProjectReport)> = JoinSet::new();
        let mut cancel_changes = cancellation.subscribe();
        let mut stop_reason: Option<String> = None;
        let mut task_nodes: HashMap<tokio::task::Id, NodeIndex> = HashMap::new();

        loop {
            for report in self.settle_blocked(&mut states) {
                events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                reports.push(report);
            }
            if cancellation.level() >= CancelLevel::Graceful {
                let reason = stop_reason.clone().unwrap_or_else(|| "not started: the run was interrupted".into());
                for report in self.cancel_pending(&mut states, &reason) {
                    events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                    reports.push(report);
                }
            }
            while running.len() < self.parallelism {
                let Some(node) = self.next_ready(&states) else { break };
                states.insert(node, State::Running);
                let job = Arc::clone(&self.job);
                let (events, cancellation) = (events.clone(), cancellation.clone());
                let handle = running.spawn(async move { (node, job.run(node, events, cancellation).await) });
                task_nodes.insert(handle.id(), node);
            }
            if running.is_empty() {
                break;
            }
            tokio::select! {
                joined = running.join_next() => {
                    let Some(joined) = joined else { continue };
                    let (node, report) = match joined {
                        Ok(finished) => finished,
                        Err(err) => match task_nodes.get(&err.id()) {
                            Some(&node) => (node, self.crashed_report(node, &err.to_string())),
                            None => continue,
                        },
                    };
                    states.insert(node, State::Done(report.result));
                    if report.result == ProjectResult::Failed && self.fail_fast && stop_reason.is_none() {
                        stop_reason = Some(format!("not started: `--fail-fast` after `{}` failed", report.project));
                        cancellation.escalate(CancelLevel::Graceful);
                    }
                    events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                    reports.push(report);
                }
                _ = cancel_changes.changed() => {}
            }
        }
        events
            .send(ExecutionEvent::RunFinished {
                at: SystemTime::now(),
                interrupted: stop_reason.is_none() && cancellation.level() >= CancelLevel::Graceful,
            })
            .await;
        reports
    }

    /// The pending project that may start now with the best start priority.
    fn next_ready(&self, states: &BTreeMap<NodeIndex, State>) -> Option<NodeIndex> {
        self.plan
            .steps
            .iter()
            .filter(|step| states[&step.node] == State::Pending)
            .filter(|step| {
                step.waits_for.iter().all(|blocker| states.get(blocker) == Some(&State::Done(ProjectResult::Succeeded)))
            })
            .filter(|step| match step.after_phase {
                Some(phase) => self
                    .plan
                    .steps
                    .iter()
                    .filter(|other| self.graph.project(other.node).phase == phase)
                    .all(|other| states[&other.node] == State::Done(ProjectResult::Succeeded)),
                None => true,
            })
            .min_by_key(|step| start_priority(self.graph.project(step.node), step.node, self.plan.operation))
            .map(|step| step.node)
    }

    /// Marks as skipped every pending project whose blocker ended without success, in
    /// topological order so a skip propagates down a whole chain in one pass.
    fn settle_blocked(&self, states: &mut BTreeMap<NodeIndex, State>) -> Vec<ProjectReport> {
        let mut skipped = Vec::new();
        for &node in &self.plan.order {
            if states[&node] != State::Pending {
                continue;
            }
            let step = self.plan.step(node).expect("ordered nodes are planned");
            let failed_blocker = step.waits_for.iter().find(|blocker| matches!(states.get(blocker), Some(State::Done(result)) if *result != ProjectResult::Succeeded));
            let reason = if let Some(&blocker) = failed_blocker {
                let result = match states[&blocker] {
                    State::Done(result) => result,
                    _ => unreachable!("checked above"),
                };
                let relation = if self.plan.operation.is_reversed() { "dependent" } else { "dependency" };
                Some(format!("{relation} `{}` {}", self.graph.project(blocker).path, result.as_str()))
            } else if let Some(phase) = step.after_phase {
                self.plan
                    .steps
                    .iter()
                    .find(|other| {
                        self.graph.project(other.node).phase == phase
                            && matches!(states[&other.node], State::Done(result) if result != ProjectResult::Succeeded)
                    })
                    .map(|other| {
                        format!(
                            "{phase} phase did not succeed (`{}` {})",
                            self.graph.project(other.node).path,
                            match states[&other.node] {
                                State::Done(result) => result.as_str(),
                                _ => "",
                            }
                        )
                    })
            } else {
                None
            };
            if let Some(reason) = reason {
                states.insert(node, State::Done(ProjectResult::Skipped));
                skipped.push(ProjectReport::not_run(
                    self.graph.project(node).path.clone(),
                    ProjectResult::Skipped,
                    reason,
                ));
            }
        }
        skipped
    }

    fn cancel_pending(&self, states: &mut BTreeMap<NodeIndex, State>, reason: &str) -> Vec<ProjectReport> {
        let mut cancelled = Vec::new();
        for &node in &self.plan.order {
            if states[&node] == State::Pending {
                states.insert(node, State::Done(ProjectResult::Cancelled));
                cancelled.push(ProjectReport::not_run(
                    self.graph.project(node).path.clone(),
                    ProjectResult::Cancelled,
                    reason.to_string(),
                ));
            }
        }
        cancelled
    }

    fn crashed_report(&self, node: NodeIndex, message: &str) -> ProjectReport {
        let mut report =
            ProjectReport::not_run(self.graph.project(node).path.clone(), ProjectResult::Failed, String::new());
        report.reason = None;
        report.failure =
            Some(super::FailureDetail { summary: format!("internal error: {message}"), ..Default::default() });
        report
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::plan::Operation;
    use crate::provider::Phase;

    /// Runs no process: sleeps a little, fails or panics on the nodes it is told to.
    struct ScriptedJob {
        graph: Arc<ProjectGraph>,
        fail: Vec<&'static str>,
        panic: Vec<&'static str>,
        running: Arc<AtomicUsize>,
        peak: Arc<AtomicUsize>,
    }

    impl ProjectJob for ScriptedJob {
        fn run(
            &self,
            node: NodeIndex,
            _: EventSender,
            _: Cancellation,
        ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send>> {
            let path = self.graph.project(node).path.clone();
            let fail = self.fail.contains(&path.as_str());
            let panic = self.panic.contains(&path.as_str());
            let (running, peak) = (Arc::clone(&self.running), Arc::clone(&self.peak));
            Box::pin(async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                assert!(!panic, "scripted panic");
                let result = if fail { ProjectResult::Failed } else { ProjectResult::Succeeded };
                ProjectReport { result, reason: None, ..ProjectReport::not_run(path, result, String::new()) }
            })
        }
    }

    fn graph(projects: &[(&str, Phase, &[&str])]) -> Arc<ProjectGraph> {
        Arc::new(ProjectGraph::build(&crate::plan::test_provider(projects)).unwrap())
    }

    async fn run(
        graph: Arc<ProjectGraph>,
        fail: Vec<&'static str>,
        panic: Vec<&'static str>,
        parallelism: usize,
    ) -> (Vec<ProjectReport>, usize) {
        let peak = Arc::new(AtomicUsize::new(0));
        let job = ScriptedJob {
            graph: Arc::clone(&graph),
            fail,
            panic,
            running: Arc::new(AtomicUsize::new(0)),
            peak: Arc::clone(&peak),
        };
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        let (events, mut receiver) = EventSender::channel(64);
        let drain = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
        let reports = Executor::new(graph, plan, job, parallelism, false).run(events, Cancellation::new()).await;
        drain.await.unwrap();
        (reports, peak.load(Ordering::SeqCst))
    }

    fn result(reports: &[ProjectReport], path: &str) -> ProjectResult {
        reports.iter().find(|r| r.project.as_str() == path).unwrap().result
    }

    use Phase::{Infrastructure as I, Kubernetes as K};

    #[tokio::test]
    async fn never_runs_more_than_the_parallelism() {
        let spec: Vec<(String, Phase, &[&str])> = (0..12).map(|i| (format!("p{i}"), I, &[][..])).collect();
        let spec: Vec<(&str, Phase, &[&str])> = spec.iter().map(|(p, ph, d)| (p.as_str(), *ph, *d)).collect();
        let (reports, peak) = run(graph(&spec), vec![], vec![], 3).await;
        assert_eq!(reports.len(), 12);
        assert_eq!(peak, 3);
    }

    #[tokio::test]
    async fn a_panicking_job_fails_only_its_project() {
        let (reports, _) = run(graph(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &[])]), vec![], vec!["a"], 4).await;
        assert_eq!(result(&reports, "a"), ProjectResult::Failed);
        assert_eq!(result(&reports, "b"), ProjectResult::Skipped);
        assert_eq!(result(&reports, "c"), ProjectResult::Succeeded);
    }

    #[tokio::test]
    async fn skips_propagate_down_chains_and_across_the_phase_barrier() {
        let (reports, _) = run(
            graph(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &["b"]), ("x", I, &[]), ("k", K, &[])]),
            vec!["a"],
            vec![],
            4,
        )
        .await;
        assert_eq!(result(&reports, "b"), ProjectResult::Skipped);
        assert_eq!(result(&reports, "c"), ProjectResult::Skipped);
        assert_eq!(result(&reports, "x"), ProjectResult::Succeeded);
        assert_eq!(result(&reports, "k"), ProjectResult::Skipped);
        let reason = reports.iter().find(|r| r.project.as_str() == "c").unwrap().reason.clone().unwrap();
        assert_eq!(reason, "dependency `b` skipped");
    }
}
