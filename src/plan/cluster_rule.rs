//! Who waits for whom beyond declared dependencies. A kubernetes project that needs the cluster
//! (the default) waits for the projects marked `provides_cluster`, not for the whole
//! infrastructure phase: an image build that needs no cluster starts at once. The whole phase
//! is still awaited when the provider asks for it (`strict_phase_barrier`), when no selected
//! project is marked, and by `destroy`, which removes the kubernetes phase first.

use std::collections::BTreeSet;

use super::{BarrierReason, Operation, PhaseBarrier, PlanStep};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::provider::Phase;

pub(super) fn steps(graph: &ProjectGraph, operation: Operation, selected: &BTreeSet<NodeIndex>) -> Vec<PlanStep> {
    let mut steps: Vec<PlanStep> = selected
        .iter()
        .map(|&node| {
            let blockers = if operation.is_reversed() { graph.dependents(node) } else { graph.dependencies(node) };
            PlanStep {
                node,
                waits_for: blockers.into_iter().filter(|other| selected.contains(other)).collect(),
                waits_for_cluster: Vec::new(),
                after_phase: None,
                expected: None,
                remaining_path: Default::default(),
            }
        })
        .collect();
    let phase = |node: NodeIndex| graph.project(node).phase;
    if operation.is_reversed() {
        if selected.iter().any(|&node| phase(node) == Phase::Kubernetes) {
            let barrier = PhaseBarrier { phase: Phase::Kubernetes, reason: BarrierReason::Destroy };
            for step in steps.iter_mut().filter(|step| phase(step.node) == Phase::Infrastructure) {
                step.after_phase = Some(barrier);
            }
        }
        return steps;
    }
    let strict = graph.strict_phase_barrier();
    let has_infrastructure = selected.iter().any(|&node| phase(node) == Phase::Infrastructure);
    let providers = final_cluster_providers(graph, selected);
    let barrier_reason = if strict {
        Some(BarrierReason::Strict)
    } else if providers.is_empty() && has_infrastructure {
        Some(BarrierReason::NoClusterProvider)
    } else {
        None
    };
    for step in steps.iter_mut().filter(|step| phase(step.node) == Phase::Kubernetes) {
        let project = graph.project(step.node);
        match barrier_reason {
            Some(reason) if has_infrastructure && (strict || project.needs_cluster) => {
                step.after_phase = Some(PhaseBarrier { phase: Phase::Infrastructure, reason });
            }
            Some(_) => {}
            None if project.needs_cluster => {
                step.waits_for_cluster =
                    providers.iter().copied().filter(|provider| !step.waits_for.contains(provider)).collect();
            }
            None => {}
        }
    }
    steps
}

/// Whether `waiter` is deployed into what `node` provides beyond what it declares: a kubernetes
/// project that needs the cluster, and a project marked `provides_cluster`. A phase barrier
/// (none marked, or `strict_phase_barrier`) orders projects but passes nothing between them.
fn waits_beyond_declared(graph: &ProjectGraph, node: NodeIndex, waiter: NodeIndex) -> bool {
    let (project, waiting) = (graph.project(node), graph.project(waiter));
    waiting.phase == Phase::Kubernetes && waiting.needs_cluster && project.provides_cluster
}

/// The projects that wait for `node` in an `up`: its declared dependents and, by the cluster
/// rule, what needs the cluster it provides. `--with-dependents`, `--from` and `--affected`
/// follow these, so a change of the cluster reaches everything deployed into it.
pub(crate) fn waiting_for(graph: &ProjectGraph, node: NodeIndex) -> Vec<NodeIndex> {
    with_cluster_rule(graph, graph.dependents(node), |other| waits_beyond_declared(graph, node, other))
}

/// The projects `node` waits for in an `up`: its declared dependencies and, by the cluster rule,
/// the cluster it needs. What a skip of `node` compares.
pub(crate) fn waited_for(graph: &ProjectGraph, node: NodeIndex) -> Vec<NodeIndex> {
    with_cluster_rule(graph, graph.dependencies(node), |other| waits_beyond_declared(graph, other, node))
}

fn with_cluster_rule(
    graph: &ProjectGraph,
    mut declared: Vec<NodeIndex>,
    rule: impl Fn(NodeIndex) -> bool,
) -> Vec<NodeIndex> {
    for other in 0..graph.len() {
        if !declared.contains(&other) && rule(other) {
            declared.push(other);
        }
    }
    declared
}

/// The selected cluster providers that no other selected cluster provider waits for, directly
/// or through selected projects: waiting for these covers every cluster provider, with one
/// visible reason per project instead of the whole chain.
fn final_cluster_providers(graph: &ProjectGraph, selected: &BTreeSet<NodeIndex>) -> Vec<NodeIndex> {
    let providers: Vec<NodeIndex> =
        selected.iter().copied().filter(|&node| graph.project(node).provides_cluster).collect();
    if providers.len() < 2 {
        return providers;
    }
    let mut finals = Vec::new();
    for &provider in &providers {
        // `provider` is final when no other provider is reachable from it.
        let mut stack: Vec<NodeIndex> =
            graph.dependents(provider).into_iter().filter(|n| selected.contains(n)).collect();
        let mut seen: BTreeSet<NodeIndex> = BTreeSet::new();
        let mut leads_to_another = false;
        while let Some(node) = stack.pop() {
            if !seen.insert(node) {
                continue;
            }
            if graph.project(node).provides_cluster {
                leads_to_another = true;
                break;
            }
            stack.extend(graph.dependents(node).into_iter().filter(|n| selected.contains(n)));
        }
        if !leads_to_another {
            finals.push(provider);
        }
    }
    finals
}
