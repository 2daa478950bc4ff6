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
        let stand_in =
            if known.is_empty() { Duration::ZERO } else { known.iter().sum::<Duration>() / known.len() as u32 };
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
pub type StartPriority = (std::cmp::Reverse<Duration>, (u8, i64));

/// Which ready project starts first when nothing else is known: earlier phase, then
/// declaration order (reversed for destroy).
pub fn start_priority(project: &Project, node: NodeIndex, operation: Operation) -> (u8, i64) {
    let phase_rank = match (project.phase, operation.is_reversed()) {
        (Phase::Infrastructure, false) | (Phase::Kubernetes, true) => 0,
        _ => 1,
    };
    let position = if operation.is_reversed() { -(node as i64) } else { node as i64 };
    (phase_rank, position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{mara_aws_provider as mara_aws, test_provider as provider};
    use crate::plan::CriticalPath;
    use crate::provider::Provider;

    use Phase::{Infrastructure as I, Kubernetes as K};

    fn paths(graph: &ProjectGraph, nodes: &[NodeIndex]) -> Vec<String> {
        nodes.iter().map(|&n| graph.project(n).path.to_string()).collect()
    }

    fn plan_text(operation: Operation) -> String {
        plan_text_of(mara_aws(), operation)
    }

    fn plan_text_of(provider: Provider, operation: Operation) -> String {
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
    fn without_cluster_providers_kubernetes_waits_for_the_whole_infrastructure_phase() {
        let provider = provider(&[("slow-infra", I, &[]), ("other-infra", I, &["slow-infra"]), ("k8s-root", K, &[])]);
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        assert_eq!(plan.waves.len(), 3);
        assert_eq!(paths(&graph, &plan.waves[2]), ["k8s-root"]);
        let barrier = plan.step(2).unwrap().after_phase.unwrap();
        assert_eq!(barrier.reason, BarrierReason::NoClusterProvider);
    }

    fn marked(mut provider: Provider, providers: &[&str], no_cluster: &[&str]) -> Provider {
        for project in &mut provider.projects {
            project.provides_cluster = providers.contains(&project.path.as_str());
            if no_cluster.contains(&project.path.as_str()) {
                project.needs_cluster = false;
            }
        }
        provider
    }

    #[test]
    fn kubernetes_waits_for_its_dependencies_and_the_cluster_only() {
        let provider = marked(
            provider(&[
                ("net", I, &[]),
                ("cluster", I, &["net"]),
                ("registry", I, &[]),
                ("slow-dns", I, &[]),
                ("image", K, &["registry"]),
                ("app", K, &["image"]),
            ]),
            &["cluster"],
            &["image"],
        );
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        let image = plan.step(4).unwrap();
        assert!(image.waits_for_cluster.is_empty() && image.after_phase.is_none(), "{image:?}");
        let app = plan.step(5).unwrap();
        assert_eq!(paths(&graph, &app.waits_for_cluster), ["cluster"]);
        assert!(app.after_phase.is_none(), "`slow-dns` does not hold the kubernetes phase back");
        assert_eq!(paths(&graph, &plan.waves[1]), ["cluster", "image"]);
    }

    #[test]
    fn only_the_last_of_a_chain_of_cluster_providers_is_named() {
        let provider = marked(
            provider(&[("eks", I, &[]), ("kubeconfig", I, &["eks"]), ("app", K, &[])]),
            &["eks", "kubeconfig"],
            &[],
        );
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        assert_eq!(paths(&graph, &plan.step(2).unwrap().waits_for_cluster), ["kubeconfig"]);
        // Selected alone, the app has no cluster provider to wait for: they are assumed done.
        let alone = ExecutionPlan::new(&graph, Operation::Up, &[2].into_iter().collect());
        assert!(alone.step(2).unwrap().waits_for_cluster.is_empty() && alone.step(2).unwrap().after_phase.is_none());
    }

    #[test]
    fn a_strict_barrier_keeps_maras_order() {
        let mut strict = mara_aws();
        strict.strict_phase_barrier = true;
        insta::assert_snapshot!(plan_text_of(strict.clone(), Operation::Up));
        let graph = ProjectGraph::build(&strict).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Up);
        let build = graph.node_of(&crate::provider::ProjectPath::new("utility/kic-image-build")).unwrap();
        assert_eq!(plan.step(build).unwrap().after_phase.unwrap().reason, BarrierReason::Strict);
    }

    #[test]
    fn destroy_removes_the_whole_kubernetes_phase_first() {
        let provider = mara_aws();
        let graph = ProjectGraph::build(&provider).unwrap();
        let plan = ExecutionPlan::full(&graph, Operation::Destroy);
        let first_infrastructure = plan.order.iter().position(|&n| graph.project(n).phase == I).unwrap();
        assert!(plan.order[first_infrastructure..].iter().all(|&n| graph.project(n).phase == I));
        assert!(plan.steps.iter().all(|step| step.waits_for_cluster.is_empty()));
    }

    #[test]
    fn expected_durations_make_the_longest_chain_start_first() {
        // `short` is declared first, but `long` heads the longer chain.
        let provider = provider(&[("short", I, &[]), ("long", I, &[]), ("after-long", I, &["long"])]);
        let graph = ProjectGraph::build(&provider).unwrap();
        let unknown = ExecutionPlan::full(&graph, Operation::Up);
        assert_eq!(paths(&graph, &unknown.order), ["short", "long", "after-long"], "declaration order");
        let seconds = [5, 3, 4];
        let known = ExecutionPlan::full(&graph, Operation::Up)
            .with_expected(&|node| Some(std::time::Duration::from_secs(seconds[node])));
        assert_eq!(paths(&graph, &known.order), ["long", "short", "after-long"]);
        let critical = CriticalPath::of(&known);
        assert_eq!(paths(&graph, &critical.projects), ["long", "after-long"]);
        assert_eq!(critical.length, std::time::Duration::from_secs(7));
        assert_eq!(critical.total_work, std::time::Duration::from_secs(12));
        assert!(critical.unknown.is_empty());
    }

    #[test]
    fn the_critical_path_crosses_a_phase_barrier_and_names_unknown_projects() {
        let provider = provider(&[("a", I, &[]), ("b", I, &[]), ("k", K, &[])]);
        let graph = ProjectGraph::build(&provider).unwrap();
        let seconds = [Some(2), Some(9), None];
        let plan = ExecutionPlan::full(&graph, Operation::Up)
            .with_expected(&|node| seconds[node].map(std::time::Duration::from_secs));
        let critical = CriticalPath::of(&plan);
        assert_eq!(paths(&graph, &critical.projects), ["b", "k"]);
        assert_eq!(critical.length, std::time::Duration::from_secs(9));
        assert_eq!(paths(&graph, &critical.unknown), ["k"]);
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
