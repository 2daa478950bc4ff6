use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use tokio::task::JoinSet;

use super::{
    CancelLevel, Cancellation, EventSender, ExecutionEvent, ProjectJob, ProjectReport, ProjectResult, Schedule,
};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::ExecutionPlan;

/// Runs a plan: every project whose blockers succeeded starts, up to `parallelism` at once.
///
/// A failure skips what depends on it and lets independent branches go on; with `fail_fast`
/// it starts nothing new and cancels what runs. The executor only emits events; it never prints.
pub(crate) struct Executor<J: ProjectJob> {
    graph: Arc<ProjectGraph>,
    plan: ExecutionPlan,
    job: Arc<J>,
    parallelism: usize,
    fail_fast: bool,
}

impl<J: ProjectJob> Executor<J> {
    pub(crate) fn new(
        graph: Arc<ProjectGraph>,
        plan: ExecutionPlan,
        job: J,
        parallelism: usize,
        fail_fast: bool,
    ) -> Self {
        Self { graph, plan, job: Arc::new(job), parallelism: parallelism.max(1), fail_fast }
    }

    /// Returns one report per planned project, in the order they finished.
    pub(crate) async fn run(self, events: EventSender, cancellation: Cancellation) -> Vec<ProjectReport> {
        let mut schedule = Schedule::new(&self.graph, &self.plan);
        let mut reports = Vec::with_capacity(self.plan.len());
        let mut running: JoinSet<(NodeIndex, ProjectReport)> = JoinSet::new();
        let mut cancel_changes = cancellation.subscribe();
        let mut stop_reason: Option<String> = None;
        let mut task_nodes: HashMap<tokio::task::Id, NodeIndex> = HashMap::new();

        loop {
            if cancellation.level() >= CancelLevel::Graceful {
                let reason = stop_reason.clone().unwrap_or_else(|| "not started: the run was interrupted".into());
                for report in schedule.cancel_pending(&reason) {
                    events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                    reports.push(report);
                }
            }
            while running.len() < self.parallelism {
                let Some(node) = schedule.start_next() else { break };
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
                    if report.result == ProjectResult::Failed && self.fail_fast && stop_reason.is_none() {
                        stop_reason = Some(format!("not started: `--fail-fast` after `{}` failed", report.project));
                        cancellation.escalate(CancelLevel::Graceful);
                    }
                    let skipped = schedule.finish(node, report.result);
                    events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                    reports.push(report);
                    for report in skipped {
                        events.send(ExecutionEvent::ProjectFinished(report.clone())).await;
                        reports.push(report);
                    }
                }
                _ = cancel_changes.changed() => {}
            }
        }
        let interrupted = stop_reason.is_none() && cancellation.level() >= CancelLevel::Graceful;
        events.send(ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted }).await;
        reports
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
        Arc::new(ProjectGraph::build(&crate::graph::test_provider(projects)).unwrap())
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
