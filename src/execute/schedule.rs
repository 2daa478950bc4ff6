use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use super::{ProjectReport, ProjectResult};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::ExecutionPlan;
use crate::provider::{Phase, ProjectPath};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Running,
    Done(ProjectResult),
}

type Priority = (Reverse<Duration>, (u8, i64));

/// Which project may start next, kept up to date incrementally so that a finished project costs
/// only its own edges: blocker counts, a ready queue in start priority (longest expected chain
/// first, then declaration order), per-phase counts for a phase barrier, and running counts of
/// concurrency pools. Pure bookkeeping: no processes, no events.
pub(crate) struct Schedule {
    nodes: Vec<NodeIndex>,
    paths: Vec<ProjectPath>,
    phases: Vec<Phase>,
    behind_barrier: Vec<bool>,
    priorities: Vec<Priority>,
    /// Who waits for each project, and whether only because it provides the cluster.
    unblocks: Vec<Vec<(usize, bool)>>,
    remaining: Vec<usize>,
    states: Vec<State>,
    ready: BinaryHeap<Reverse<(Priority, usize)>>,
    /// Unblocked, but behind a phase barrier that is still closed.
    waiting_for_phase: Vec<usize>,
    first_phase: Option<Phase>,
    first_phase_unfinished: usize,
    phase_failure: Option<String>,
    reversed: bool,
    pool_of: Vec<Option<usize>>,
    pool_limits: Vec<usize>,
    pool_running: Vec<usize>,
    /// Ready, but their pool is full.
    pool_waiting: Vec<Vec<usize>>,
}

impl Schedule {
    pub(crate) fn new(graph: &ProjectGraph, plan: &ExecutionPlan) -> Self {
        let count = plan.steps.len();
        let mut unblocks = vec![Vec::new(); count];
        for (i, step) in plan.steps.iter().enumerate() {
            for &blocker in &step.waits_for {
                if let Some(j) = plan.slot(blocker) {
                    unblocks[j].push((i, false));
                }
            }
            for &blocker in &step.waits_for_cluster {
                if let Some(j) = plan.slot(blocker) {
                    unblocks[j].push((i, true));
                }
            }
        }
        let first_phase = plan.steps.iter().find_map(|step| step.after_phase.map(|barrier| barrier.phase));
        let phases: Vec<Phase> = (0..count).map(|i| plan.phase_at(i)).collect();
        let behind_barrier: Vec<bool> = plan.steps.iter().map(|step| step.after_phase.is_some()).collect();
        let pool_names: Vec<String> = {
            let mut names: Vec<String> =
                plan.steps.iter().filter_map(|step| graph.project(step.node).pool.clone()).collect();
            names.sort();
            names.dedup();
            names
        };
        let pool_of = plan
            .steps
            .iter()
            .map(|step| graph.project(step.node).pool.as_ref().and_then(|pool| pool_names.binary_search(pool).ok()))
            .collect();
        let pool_limits =
            pool_names.iter().map(|name| plan.pool_limits.get(name).copied().unwrap_or(usize::MAX).max(1)).collect();
        let mut schedule = Self {
            nodes: plan.steps.iter().map(|step| step.node).collect(),
            paths: plan.steps.iter().map(|step| graph.project(step.node).path.clone()).collect(),
            first_phase_unfinished: (0..count)
                .filter(|&i| Some(phases[i]) == first_phase && !behind_barrier[i])
                .count(),
            phases,
            behind_barrier,
            priorities: (0..count).map(|i| plan.priority(i)).collect(),
            unblocks,
            remaining: plan.steps.iter().map(|step| step.waits_for.len() + step.waits_for_cluster.len()).collect(),
            states: vec![State::Pending; count],
            ready: BinaryHeap::new(),
            waiting_for_phase: Vec::new(),
            first_phase,
            phase_failure: None,
            reversed: plan.operation.is_reversed(),
            pool_of,
            pool_running: vec![0; pool_names.len()],
            pool_waiting: vec![Vec::new(); pool_names.len()],
            pool_limits,
        };
        for i in 0..count {
            if schedule.remaining[i] == 0 {
                schedule.unblock(i);
            }
        }
        schedule
    }

    fn barrier_open(&self) -> bool {
        self.first_phase_unfinished == 0 && self.phase_failure.is_none()
    }

    /// Whether `i` counts toward the phase barrier: in the earlier phase and not behind it.
    fn feeds_barrier(&self, i: usize) -> bool {
        Some(self.phases[i]) == self.first_phase && !self.behind_barrier[i]
    }

    fn unblock(&mut self, i: usize) {
        if self.behind_barrier[i] && !self.barrier_open() {
            self.waiting_for_phase.push(i);
        } else {
            self.ready.push(Reverse((self.priorities[i], i)));
        }
    }

    /// The project to start now, by start priority, or `None` when nothing is ready (or every
    /// ready project's pool is full).
    pub(crate) fn start_next(&mut self) -> Option<NodeIndex> {
        while let Some(Reverse((_, i))) = self.ready.pop() {
            if self.states[i] != State::Pending {
                continue;
            }
            if let Some(pool) = self.pool_of[i] {
                if self.pool_running[pool] >= self.pool_limits[pool] {
                    self.pool_waiting[pool].push(i);
                    continue;
                }
                self.pool_running[pool] += 1;
            }
            self.states[i] = State::Running;
            return Some(self.nodes[i]);
        }
        None
    }

    /// Records how `node` ended; returns the reports of the projects that can no longer run.
    pub(crate) fn finish(&mut self, node: NodeIndex, result: ProjectResult) -> Vec<ProjectReport> {
        let Ok(i) = self.nodes.binary_search(&node) else { return Vec::new() };
        if matches!(self.states[i], State::Done(_)) {
            return Vec::new(); // ended once already: its edges were released then
        }
        if let (State::Running, Some(pool)) = (self.states[i], self.pool_of[i]) {
            self.pool_running[pool] = self.pool_running[pool].saturating_sub(1);
            for k in std::mem::take(&mut self.pool_waiting[pool]) {
                self.ready.push(Reverse((self.priorities[k], k)));
            }
        }
        let mut skipped = Vec::new();
        self.end(i, result, &mut skipped);
        skipped
    }

    fn end(&mut self, i: usize, result: ProjectResult, skipped: &mut Vec<ProjectReport>) {
        self.states[i] = State::Done(result);
        let in_first_phase = self.feeds_barrier(i);
        if in_first_phase {
            self.first_phase_unfinished = self.first_phase_unfinished.saturating_sub(1);
        }
        if result.lets_dependents_run() {
            for (k, _) in self.unblocks[i].clone() {
                // Saturating: a count the executor gets wrong must not take the run (and its
                // record) down; the state check below still starts each project once.
                self.remaining[k] = self.remaining[k].saturating_sub(1);
                if self.remaining[k] == 0 && self.states[k] == State::Pending {
                    self.unblock(k);
                }
            }
            if in_first_phase && self.barrier_open() {
                for k in std::mem::take(&mut self.waiting_for_phase) {
                    self.ready.push(Reverse((self.priorities[k], k)));
                }
            }
            return;
        }
        let relation = if self.reversed { "dependent" } else { "dependency" };
        let because = |path: &ProjectPath, cluster: bool, what: &str| {
            if cluster {
                format!("cluster provider `{path}` {what}")
            } else {
                format!("{relation} `{path}` {what}")
            }
        };
        let mut queue: VecDeque<(usize, String)> = self.unblocks[i]
            .iter()
            .map(|&(k, cluster)| (k, because(&self.paths[i], cluster, result.as_str())))
            .collect();
        if in_first_phase && self.phase_failure.is_none() {
            let phase = self.phases[i];
            let reason = format!("{phase} phase did not succeed (`{}` {})", self.paths[i], result.as_str());
            self.phase_failure = Some(reason.clone());
            queue.extend((0..self.nodes.len()).filter(|&k| self.behind_barrier[k]).map(|k| (k, reason.clone())));
        }
        while let Some((k, reason)) = queue.pop_front() {
            if self.states[k] != State::Pending {
                continue;
            }
            skipped.push(ProjectReport::not_run(self.paths[k].clone(), ProjectResult::Skipped, reason));
            // A skipped project is an ending too: its dependents and the barrier follow.
            self.states[k] = State::Done(ProjectResult::Skipped);
            if self.feeds_barrier(k) {
                self.first_phase_unfinished = self.first_phase_unfinished.saturating_sub(1);
                if self.phase_failure.is_none() {
                    let phase = self.phases[k];
                    let reason = format!("{phase} phase did not succeed (`{}` skipped)", self.paths[k]);
                    self.phase_failure = Some(reason.clone());
                    queue
                        .extend((0..self.nodes.len()).filter(|&n| self.behind_barrier[n]).map(|n| (n, reason.clone())));
                }
            }
            for &(next, cluster) in &self.unblocks[k] {
                queue.push_back((next, because(&self.paths[k], cluster, "skipped")));
            }
        }
    }

    /// Marks every project that has not started as cancelled, in start order.
    pub(crate) fn cancel_pending(&mut self, reason: &str) -> Vec<ProjectReport> {
        let mut pending: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.states[i] == State::Pending).collect();
        pending.sort_by_key(|&i| self.priorities[i]);
        for &i in &pending {
            self.states[i] = State::Done(ProjectResult::Cancelled);
        }
        pending
            .into_iter()
            .map(|i| ProjectReport::not_run(self.paths[i].clone(), ProjectResult::Cancelled, reason.to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::test_provider;
    use crate::plan::Operation;
    use crate::provider::Phase::{Infrastructure as I, Kubernetes as K};

    fn schedule(projects: &[(&str, Phase, &[&str])]) -> (ProjectGraph, Schedule) {
        let graph = ProjectGraph::build(&test_provider(projects)).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        let schedule = Schedule::new(&graph, &plan);
        (graph, schedule)
    }

    fn path(graph: &ProjectGraph, node: Option<NodeIndex>) -> &str {
        node.map_or("(none)", |node| graph.project(node).path.as_str())
    }

    #[test]
    fn a_pool_runs_at_most_its_limit_while_other_projects_go_on() {
        let mut provider = test_provider(&[("a1", I, &[]), ("a2", I, &[]), ("a3", I, &[]), ("free", I, &[])]);
        for project in provider.projects.iter_mut().take(3) {
            project.pool = Some("aws".into());
        }
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan =
            ExecutionPlan::full(&graph, Operation::Up).with_pool_limits([("aws".to_string(), 2)].into_iter().collect());
        let mut schedule = Schedule::new(&graph, &plan);
        assert_eq!(path(&graph, schedule.start_next()), "a1");
        assert_eq!(path(&graph, schedule.start_next()), "a2");
        assert_eq!(path(&graph, schedule.start_next()), "free", "a3 waits for a slot of `aws`");
        assert_eq!(schedule.start_next(), None);
        schedule.finish(0, ProjectResult::Failed);
        assert_eq!(path(&graph, schedule.start_next()), "a3", "a failure frees the slot too");
    }

    #[test]
    fn the_longest_expected_chain_starts_first() {
        let graph = ProjectGraph::build(&test_provider(&[("short", I, &[]), ("long", I, &[]), ("next", I, &["long"])]))
            .unwrap();
        let seconds = [1, 1, 10];
        let plan = ExecutionPlan::full(&graph, Operation::Up)
            .with_expected(&|node| Some(std::time::Duration::from_secs(seconds[node])));
        let mut schedule = Schedule::new(&graph, &plan);
        assert_eq!(path(&graph, schedule.start_next()), "long");
    }

    #[test]
    fn when_the_cluster_fails_what_needs_no_cluster_still_runs() {
        let mut provider = test_provider(&[
            ("cluster", I, &[]),
            ("registry", I, &[]),
            ("image", K, &["registry"]),
            ("app", K, &["image"]),
        ]);
        provider.projects[0].provides_cluster = true;
        provider.projects[2].needs_cluster = false;
        let graph = ProjectGraph::build(&provider).unwrap();
        let mut schedule = Schedule::new(&graph, &ExecutionPlan::full(&graph, Operation::Up));
        let (cluster, registry) = (schedule.start_next().unwrap(), schedule.start_next().unwrap());
        let skipped = schedule.finish(cluster, ProjectResult::Failed);
        let reasons: Vec<(String, String)> =
            skipped.iter().map(|r| (r.project.to_string(), r.reason.clone().unwrap())).collect();
        assert_eq!(reasons, [("app".to_string(), "cluster provider `cluster` failed".to_string())]);
        schedule.finish(registry, ProjectResult::Succeeded);
        assert_eq!(path(&graph, schedule.start_next()), "image");
    }

    #[test]
    fn the_barrier_opens_when_the_whole_first_phase_succeeded() {
        let (graph, mut schedule) = schedule(&[("a", I, &[]), ("b", I, &["a"]), ("k", K, &[])]);
        let a = schedule.start_next().unwrap();
        assert_eq!(graph.project(a).path.as_str(), "a");
        assert_eq!(schedule.start_next(), None, "b waits for a, k for the phase");
        schedule.finish(a, ProjectResult::Succeeded);
        let b = schedule.start_next().unwrap();
        assert_eq!(schedule.start_next(), None);
        schedule.finish(b, ProjectResult::Succeeded);
        assert_eq!(graph.project(schedule.start_next().unwrap()).path.as_str(), "k");
    }

    #[test]
    fn a_long_chain_runs_every_project_in_order() {
        let names: Vec<String> = (0..5_000).map(|i| format!("p{i}")).collect();
        let deps: Vec<Vec<&str>> =
            (0..5_000).map(|i| if i == 0 { vec![] } else { vec![names[i - 1].as_str()] }).collect();
        let spec: Vec<(&str, Phase, &[&str])> =
            (0..5_000).map(|i| (names[i].as_str(), I, deps[i].as_slice())).collect();
        let (_, mut schedule) = schedule(&spec);
        let mut order = Vec::new();
        while let Some(node) = schedule.start_next() {
            assert_eq!(schedule.start_next(), None, "a chain never has two ready projects");
            schedule.finish(node, ProjectResult::Succeeded);
            order.push(node);
        }
        assert_eq!(order, (0..5_000).collect::<Vec<_>>());
    }

    #[test]
    fn a_failure_skips_down_the_chain_and_behind_the_barrier() {
        let (graph, mut schedule) = schedule(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &["b"]), ("k", K, &[])]);
        let a = schedule.start_next().unwrap();
        let skipped = schedule.finish(a, ProjectResult::Failed);
        let reasons: Vec<(String, String)> =
            skipped.iter().map(|r| (r.project.to_string(), r.reason.clone().unwrap())).collect();
        assert!(reasons.contains(&("b".into(), "dependency `a` failed".into())), "{reasons:?}");
        assert!(reasons.contains(&("c".into(), "dependency `b` skipped".into())), "{reasons:?}");
        assert!(
            reasons.contains(&("k".into(), "infrastructure phase did not succeed (`a` failed)".into())),
            "{reasons:?}"
        );
        assert_eq!(schedule.start_next(), None);
        let _ = graph;
    }

    #[test]
    fn a_project_reported_twice_releases_its_dependents_once() {
        let (graph, mut schedule) = schedule(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &["a", "b"]), ("k", K, &[])]);
        let a = schedule.start_next().unwrap();
        for result in [ProjectResult::Succeeded, ProjectResult::Succeeded, ProjectResult::Failed] {
            assert!(schedule.finish(a, result).is_empty());
        }
        let b = schedule.start_next().unwrap();
        assert_eq!(graph.project(b).path.as_str(), "b");
        assert_eq!(schedule.start_next(), None, "c still waits for b");
        schedule.finish(b, ProjectResult::Succeeded);
        assert_eq!(path(&graph, schedule.start_next()), "c");
    }
}
