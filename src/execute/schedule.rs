use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::{ProjectReport, ProjectResult};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::{start_priority, ExecutionPlan};
use crate::provider::{Phase, ProjectPath};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Running,
    Done(ProjectResult),
}

/// Which project may start next, kept up to date incrementally so that a finished project costs
/// only its own edges: blocker counts, a ready queue in start priority, and per-phase counts for
/// the phase barrier. Pure bookkeeping: no processes, no events.
pub struct Schedule {
    nodes: Vec<NodeIndex>,
    paths: Vec<ProjectPath>,
    phases: Vec<Phase>,
    behind_barrier: Vec<bool>,
    priorities: Vec<(u8, i64)>,
    unblocks: Vec<Vec<usize>>,
    remaining: Vec<usize>,
    states: Vec<State>,
    ready: BinaryHeap<Reverse<((u8, i64), usize)>>,
    /// Unblocked, but behind a phase barrier that is still closed.
    waiting_for_phase: Vec<usize>,
    first_phase: Option<Phase>,
    first_phase_unfinished: usize,
    phase_failure: Option<String>,
    reversed: bool,
}

impl Schedule {
    pub fn new(graph: &ProjectGraph, plan: &ExecutionPlan) -> Self {
        let count = plan.steps.len();
        let slot = |node: NodeIndex| plan.steps.binary_search_by_key(&node, |step| step.node).ok();
        let mut unblocks = vec![Vec::new(); count];
        for (i, step) in plan.steps.iter().enumerate() {
            for &blocker in &step.waits_for {
                if let Some(j) = slot(blocker) {
                    unblocks[j].push(i);
                }
            }
        }
        let first_phase = plan.steps.iter().find_map(|step| step.after_phase);
        let phases: Vec<Phase> = plan.steps.iter().map(|step| graph.project(step.node).phase).collect();
        let mut schedule = Self {
            nodes: plan.steps.iter().map(|step| step.node).collect(),
            paths: plan.steps.iter().map(|step| graph.project(step.node).path.clone()).collect(),
            first_phase_unfinished: phases.iter().filter(|phase| Some(**phase) == first_phase).count(),
            phases,
            behind_barrier: plan.steps.iter().map(|step| step.after_phase.is_some()).collect(),
            priorities: plan
                .steps
                .iter()
                .map(|step| start_priority(graph.project(step.node), step.node, plan.operation))
                .collect(),
            unblocks,
            remaining: plan.steps.iter().map(|step| step.waits_for.len()).collect(),
            states: vec![State::Pending; count],
            ready: BinaryHeap::new(),
            waiting_for_phase: Vec::new(),
            first_phase,
            phase_failure: None,
            reversed: plan.operation.is_reversed(),
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

    fn unblock(&mut self, i: usize) {
        if self.behind_barrier[i] && !self.barrier_open() {
            self.waiting_for_phase.push(i);
        } else {
            self.ready.push(Reverse((self.priorities[i], i)));
        }
    }

    /// The project to start now, by start priority, or `None` when nothing is ready.
    pub fn start_next(&mut self) -> Option<NodeIndex> {
        while let Some(Reverse((_, i))) = self.ready.pop() {
            if self.states[i] == State::Pending {
                self.states[i] = State::Running;
                return Some(self.nodes[i]);
            }
        }
        None
    }

    /// Records how `node` ended; returns the reports of the projects that can no longer run.
    pub fn finish(&mut self, node: NodeIndex, result: ProjectResult) -> Vec<ProjectReport> {
        let Ok(i) = self.nodes.binary_search(&node) else { return Vec::new() };
        let mut skipped = Vec::new();
        self.end(i, result, &mut skipped);
        skipped
    }

    fn end(&mut self, i: usize, result: ProjectResult, skipped: &mut Vec<ProjectReport>) {
        self.states[i] = State::Done(result);
        let in_first_phase = Some(self.phases[i]) == self.first_phase;
        if in_first_phase {
            self.first_phase_unfinished -= 1;
        }
        if result == ProjectResult::Succeeded {
            for k in self.unblocks[i].clone() {
                self.remaining[k] -= 1;
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
        let mut queue: VecDeque<(usize, String)> = self.unblocks[i]
            .iter()
            .map(|&k| (k, format!("{relation} `{}` {}", self.paths[i], result.as_str())))
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
            if Some(self.phases[k]) == self.first_phase {
                self.first_phase_unfinished -= 1;
            }
            for &next in &self.unblocks[k] {
                queue.push_back((next, format!("{relation} `{}` skipped", self.paths[k])));
            }
        }
    }

    /// Marks every project that has not started as cancelled, in start order.
    pub fn cancel_pending(&mut self, reason: &str) -> Vec<ProjectReport> {
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
}
