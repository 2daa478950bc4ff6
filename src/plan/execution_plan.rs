use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;

use super::plan_dag::PlanDag;
use super::{cluster_rule, Operation};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::provider::{Phase, Project};

/// Why a project waits for a whole phase rather than for named projects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierReason {
    /// The provider says `strict_phase_barrier = true` (MARA's own order).
    Strict,
    /// No selected project is marked `provides_cluster`, so the whole phase stands for the cluster.
    NoClusterProvider,
    /// `destroy` removes the whole kubernetes phase before any infrastructure.
    Destroy,
}

/// Every project of `phase` must finish first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PhaseBarrier {
    pub phase: Phase,
    pub reason: BarrierReason,
}

/// One project of a plan and what must finish before it may start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanStep {
    pub node: NodeIndex,
    /// Direct blockers among the selected projects, in the operation's direction.
    pub waits_for: Vec<NodeIndex>,
    /// The projects that provide the cluster this kubernetes project needs, beyond `waits_for`.
    pub waits_for_cluster: Vec<NodeIndex>,
    /// The whole earlier phase must finish first, on top of the blockers.
    pub after_phase: Option<PhaseBarrier>,
    /// The median of the last successful runs of this operation, when the history has any.
    #[serde(skip)]
    pub expected: Option<Duration>,
    /// The longest expected chain from this project's start to the end of the plan: ready
    /// projects with the longest one start first (all zero when nothing is known).
    #[serde(skip)]
    pub remaining_path: Duration,
}

impl PlanStep {
    /// Every named project this one waits for: declared dependencies and cluster providers.
    pub fn blockers(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        self.waits_for.iter().chain(&self.waits_for_cluster).copied()
    }
}

/// What will run, in which order and with what parallelism: pure data derived from the graph.
#[derive(Debug, Clone, Serialize)]
pub struct ExecutionPlan {
    pub operation: Operation,
    /// Steps keyed by node; only selected projects have one.
    pub steps: Vec<PlanStep>,
    /// Start order at parallelism 1.
    pub order: Vec<NodeIndex>,
    /// Projects that may run at the same time, wave by wave.
    pub waves: Vec<Vec<NodeIndex>>,
    /// Concurrency limit of each named pool; a pool without one is unlimited.
    pub pool_limits: BTreeMap<String, usize>,
    /// Phase of each planned node, for the barrier (indexed like `steps`).
    #[serde(skip)]
    phases: Vec<Phase>,
    /// Declaration rank of each step: the tie-breaker of the start priority.
    #[serde(skip)]
    ranks: Vec<(u8, i64)>,
}

impl ExecutionPlan {
    /// Plans every project of the graph.
    pub fn full(graph: &ProjectGraph, operation: Operation) -> Self {
        Self::new(graph, operation, &(0..graph.len()).collect())
    }

    /// Plans only `selected`; edges to unselected projects are dropped (they are assumed done).
    pub fn new(graph: &ProjectGraph, operation: Operation, selected: &BTreeSet<NodeIndex>) -> Self {
        let steps = cluster_rule::steps(graph, operation, selected);
        let phases: Vec<Phase> = steps.iter().map(|step| graph.project(step.node).phase).collect();
        let ranks = steps.iter().map(|step| start_priority(graph.project(step.node), step.node, operation)).collect();
        let mut plan = Self {
            operation,
            steps,
            order: Vec::new(),
            waves: Vec::new(),
            pool_limits: BTreeMap::new(),
            phases,
            ranks,
        };
        plan.order = plan.start_order();
        plan.waves = plan.compute_waves();
        plan
    }

    /// Adds what the history knows: `expected(node)` is a project's usual duration. The start
    /// order becomes critical-path first: the ready project with the longest expected chain
    /// ahead of it starts first. Unknown projects count as the mean of the known ones there.
    pub fn with_expected(mut self, expected: &dyn Fn(NodeIndex) -> Option<Duration>) -> Self {
        for step in &mut self.steps {
            step.expected = expected(step.node);
        }
        let known: Vec<Duration> = self.steps.iter().filter_map(|step| step.expected).collect();
        let stand_in = super::forecast::saturating_mean(&known);
        let dag = self.dag();
        let slots = self.topological_slots(&dag);
        let paths = dag.remaining_paths(&slots, &|i| self.steps[i].expected.unwrap_or(stand_in));
        for (step, path) in self.steps.iter_mut().zip(paths) {
            step.remaining_path = path;
        }
        self.order = self.start_order();
        self
    }

    /// Limits per pool (`[pools]` of the provider, then `--pool`).
    pub fn with_pool_limits(mut self, limits: BTreeMap<String, usize>) -> Self {
        self.pool_limits = limits;
        self
    }

    pub fn step(&self, node: NodeIndex) -> Option<&PlanStep> {
        self.slot(node).map(|at| &self.steps[at])
    }

    /// Position of `node` in `steps`: steps are sorted by node (they come from a `BTreeSet`).
    pub fn slot(&self, node: NodeIndex) -> Option<usize> {
        self.steps.binary_search_by_key(&node, |step| step.node).ok()
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The widest wave: how many projects could usefully run at once.
    pub fn max_width(&self) -> usize {
        self.waves.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Start priority of the step in `slot`: smaller starts first. Longest expected remaining
    /// chain first, then earlier phase, then declaration order (reversed for destroy).
    pub fn priority(&self, slot: usize) -> StartPriority {
        (std::cmp::Reverse(self.steps[slot].remaining_path), self.ranks[slot])
    }

    pub(crate) fn dag(&self) -> PlanDag {
        let phase_of = |node: NodeIndex| self.phases[self.slot(node).expect("planned node")];
        PlanDag::new(&self.steps, &phase_of)
    }

    /// Phase of the project in `slot`.
    pub fn phase_at(&self, slot: usize) -> Phase {
        self.phases[slot]
    }

    fn topological_slots(&self, dag: &PlanDag) -> Vec<usize> {
        dag.order(&|i| self.ranks[i])
    }

    fn start_order(&self) -> Vec<NodeIndex> {
        self.dag().order(&|i| self.priority(i)).into_iter().map(|i| self.steps[i].node).collect()
    }

    /// Wave of a project = 1 + the latest wave among its blockers and, behind a phase barrier,
    /// among every project of the earlier phase.
    fn compute_waves(&self) -> Vec<Vec<NodeIndex>> {
        let dag = self.dag();
        let slots = self.topological_slots(&dag);
        let barrier = dag.barrier();
        // Every project feeding the barrier comes before every project behind it in `slots`.
        let mut barrier_wave: Option<usize> = None;
        let mut placed: Vec<usize> = vec![0; barrier];
        for &i in &slots {
            let mut wave = 0;
            for blocker in self.steps[i].blockers() {
                if let Some(j) = self.slot(blocker) {
                    wave = wave.max(placed[j] + 1);
                }
            }
            if let (Some(_), Some(latest)) = (self.steps[i].after_phase, barrier_wave) {
                wave = wave.max(latest + 1);
            }
            placed[i] = wave;
            if dag.successors[i].contains(&barrier) {
                barrier_wave = Some(barrier_wave.map_or(wave, |w| w.max(wave)));
            }
        }
        let count = placed.iter().max().map_or(0, |w| w + 1);
        let mut waves = vec![Vec::new(); if slots.is_empty() { 0 } else { count }];
        for &node in &self.order {
            if let Some(i) = self.slot(node) {
                waves[placed[i]].push(node);
            }
        }
        waves
    }
}

/// Smaller starts first: longest expected remaining chain, then phase, then declaration order.
pub(crate) type StartPriority = (std::cmp::Reverse<Duration>, (u8, i64));

/// Which ready project starts first when nothing else is known: earlier phase, then
/// declaration order (reversed for destroy).
pub(super) fn start_priority(project: &Project, node: NodeIndex, operation: Operation) -> (u8, i64) {
    let phase_rank = match (project.phase, operation.is_reversed()) {
        (Phase::Infrastructure, false) | (Phase::Kubernetes, true) => 0,
        _ => 1,
    };
    let position = if operation.is_reversed() { -(node as i64) } else { node as i64 };
    (phase_rank, position)
}

#[cfg(test)]
#[path = "execution_plan_tests.rs"]
mod tests;
