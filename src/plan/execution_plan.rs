use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use serde::Serialize;

use super::Operation;
use crate::graph::{NodeIndex, ProjectGraph};
use crate::provider::{Phase, Project};

/// One project of a plan and what must finish before it may start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanStep {
    pub node: NodeIndex,
    /// Direct blockers among the selected projects, in the operation's direction.
    pub waits_for: Vec<NodeIndex>,
    /// Projects of the earlier phase must all finish first (the phase barrier), on top of `waits_for`.
    pub after_phase: Option<Phase>,
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
}

impl ExecutionPlan {
    /// Plans every project of the graph.
    pub fn full(graph: &ProjectGraph, operation: Operation) -> Self {
        Self::new(graph, operation, &(0..graph.len()).collect())
    }

    /// Plans only `selected`; edges to unselected projects are dropped (they are assumed done).
    pub fn new(graph: &ProjectGraph, operation: Operation, selected: &BTreeSet<NodeIndex>) -> Self {
        let (first_phase, second_phase) = if operation.is_reversed() {
            (Phase::Kubernetes, Phase::Infrastructure)
        } else {
            (Phase::Infrastructure, Phase::Kubernetes)
        };
        let has_first_phase = selected.iter().any(|&node| graph.project(node).phase == first_phase);
        let steps: Vec<PlanStep> = selected
            .iter()
            .map(|&node| {
                let blockers = if operation.is_reversed() { graph.dependents(node) } else { graph.dependencies(node) };
                PlanStep {
                    node,
                    waits_for: blockers.into_iter().filter(|other| selected.contains(other)).collect(),
                    after_phase: (graph.project(node).phase == second_phase && has_first_phase).then_some(first_phase),
                }
            })
            .collect();
        let order = start_order(graph, operation, &steps);
        let waves = waves(graph, &steps, &order);
        Self { operation, steps, order, waves }
    }

    pub fn step(&self, node: NodeIndex) -> Option<&PlanStep> {
        // Steps are sorted by node: they come from a `BTreeSet`.
        self.steps.binary_search_by_key(&node, |step| step.node).ok().map(|at| &self.steps[at])
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
}

/// Which ready project starts first: earlier phase, then declaration order (reversed for destroy).
/// The executor uses the same rule, so parallelism 1 reproduces this order exactly.
pub fn start_priority(project: &Project, node: NodeIndex, operation: Operation) -> (u8, i64) {
    let phase_rank = match (project.phase, operation.is_reversed()) {
        (Phase::Infrastructure, false) | (Phase::Kubernetes, true) => 0,
        _ => 1,
    };
    let position = if operation.is_reversed() { -(node as i64) } else { node as i64 };
    (phase_rank, position)
}

fn start_order(graph: &ProjectGraph, operation: Operation, steps: &[PlanStep]) -> Vec<NodeIndex> {
    let slot = |node: NodeIndex| steps.binary_search_by_key(&node, |step| step.node).ok();
    let mut remaining_blockers: Vec<usize> = steps.iter().map(|step| step.waits_for.len()).collect();
    let mut unblocks: Vec<Vec<usize>> = vec![Vec::new(); steps.len()];
    for (i, step) in steps.iter().enumerate() {
        for &blocker in &step.waits_for {
            if let Some(j) = slot(blocker) {
                unblocks[j].push(i);
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<((u8, i64), usize)>> = BinaryHeap::new();
    for (i, step) in steps.iter().enumerate() {
        if remaining_blockers[i] == 0 {
            ready.push(Reverse((start_priority(graph.project(step.node), step.node, operation), i)));
        }
    }
    let mut order = Vec::with_capacity(steps.len());
    while let Some(Reverse((_, i))) = ready.pop() {
        order.push(steps[i].node);
        for &k in &unblocks[i] {
            remaining_blockers[k] -= 1;
            if remaining_blockers[k] == 0 {
                let node = steps[k].node;
                ready.push(Reverse((start_priority(graph.project(node), node, operation), k)));
            }
        }
    }
    order
}

/// Wave of a project = 1 + the latest wave among its blockers and, behind a phase barrier,
/// among every project of the earlier phase.
fn waves(graph: &ProjectGraph, steps: &[PlanStep], order: &[NodeIndex]) -> Vec<Vec<NodeIndex>> {
    let mut wave_of: Vec<Option<usize>> = vec![None; graph.len()];
    let mut last_wave_of_phase: [Option<usize>; 2] = [None, None];
    let phase_slot = |phase: Phase| if phase == Phase::Infrastructure { 0 } else { 1 };
    let step_of = |node: NodeIndex| {
        &steps[steps.binary_search_by_key(&node, |step| step.node).expect("ordered nodes have steps")]
    };
    // `order` is topological and lists a whole phase before the next, so blockers are seen first.
    for &node in order {
        let step = step_of(node);
        let mut wave = step.waits_for.iter().filter_map(|&blocker| wave_of[blocker]).map(|w| w + 1).max().unwrap_or(0);
        if let Some(phase) = step.after_phase {
            if let Some(last) = last_wave_of_phase[phase_slot(phase)] {
                wave = wave.max(last + 1);
            }
        }
        wave_of[node] = Some(wave);
        let slot = &mut last_wave_of_phase[phase_slot(graph.project(node).phase)];
        *slot = Some(slot.map_or(wave, |last| last.max(wave)));
    }
    let count = wave_of.iter().flatten().max().map_or(0, |w| w + 1);
    let mut waves = vec![Vec::new(); count];
    for &node in order {
        if let Some(wave) = wave_of[node] {
            waves[wave].push(node);
        }
    }
    waves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{mara_aws_provider as mara_aws, test_provider as provider};

    use Phase::{Infrastructure as I, Kubernetes as K};

    fn paths(graph: &ProjectGraph, nodes: &[NodeIndex]) -> Vec<String> {
        nodes.iter().map(|&n| graph.project(n).path.to_string()).collect()
    }

    fn plan_text(operation: Operation) -> String {
        let provider = mara_aws();
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, operation);
        let mut out = String::from("order:\n");
        for path in paths(&graph, &plan.order) {
            out.push_str(&format!("  {path}\n"));
        }
        out.push_str("waves:\n");
        for (i, wave) in plan.waves.iter().enumerate() {
            out.push_str(&format!("  {}: {}\n", i + 1, paths(&graph, wave).join(", ")));
        }
        out
    }

    #[test]
    fn mara_aws_up_plan() {
        insta::assert_snapshot!(plan_text(Operation::Up));
    }

    #[test]
    fn mara_aws_destroy_plan() {
        insta::assert_snapshot!(plan_text(Operation::Destroy));
    }

    #[test]
    fn kubernetes_waits_for_the_whole_infrastructure_phase() {
        let provider = provider(&[("slow-infra", I, &[]), ("other-infra", I, &["slow-infra"]), ("k8s-root", K, &[])]);
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        assert_eq!(plan.waves.len(), 3);
        assert_eq!(paths(&graph, &plan.waves[2]), ["k8s-root"]);
    }

    #[test]
    fn selection_drops_edges_to_unselected_projects() {
        let provider = provider(&[("a", I, &[]), ("b", I, &["a"]), ("c", I, &["b"])]);
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::new(&graph, Operation::Up, &[1, 2].into_iter().collect());
        assert_eq!(paths(&graph, &plan.order), ["b", "c"]);
        assert!(plan.step(1).unwrap().waits_for.is_empty());
    }

    #[test]
    fn cycle_is_reported_whole() {
        let provider = provider(&[("a", I, &["c"]), ("b", I, &["a"]), ("c", I, &["b"]), ("d", I, &[])]);
        let err = ProjectGraph::build(&provider).unwrap_err();
        assert_eq!(err.to_string(), "providers/test.toml:1: dependency cycle: a -> c -> b -> a");
    }

    #[test]
    fn order_is_topological_for_generated_graphs() {
        // A wide and deep generated graph: every project after all its dependencies.
        let names: Vec<String> = (0..300).map(|i| format!("p{i}")).collect();
        let deps: Vec<Vec<&str>> = (0..300)
            .map(|i| if i < 10 { vec![] } else { vec![names[i / 3].as_str(), names[i - 7].as_str()] })
            .collect();
        let spec: Vec<(&str, Phase, &[&str])> = (0..300).map(|i| (names[i].as_str(), I, deps[i].as_slice())).collect();
        let provider = provider(&spec);
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        let position: std::collections::HashMap<usize, usize> =
            plan.order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        for step in &plan.steps {
            for blocker in &step.waits_for {
                assert!(position[blocker] < position[&step.node]);
            }
        }
        assert_eq!(plan.order.len(), 300);
    }
}
