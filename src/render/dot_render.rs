use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::ExecutionPlan;
use crate::provider::{Phase, Provider};

use super::PhaseWaves;

/// Graphviz: one cluster per phase holding all its projects, the phases left to right in the
/// order they run, edges in execution direction. Waves are ranks inside their phase's cluster:
/// a `rank=same` outside a cluster would pull its projects out of it.
pub fn dot(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let path = |node: NodeIndex| quote(graph.project(node).path.as_str());
    // Looked up for every label, rank and phase edge: indexed once, not searched each time.
    let waves: HashMap<NodeIndex, usize> =
        plan.waves.iter().enumerate().flat_map(|(number, wave)| wave.iter().map(move |&node| (node, number))).collect();
    let wave_of = |node: NodeIndex| waves.get(&node).copied().unwrap_or(0);
    let numbers = PhaseWaves::of(graph, plan);
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&provider.name));
    // `compound` lets the phase-order edge end at the clusters' borders (`ltail`/`lhead`).
    let _ = writeln!(out, "  rankdir=LR;\n  compound=true;\n  node [shape=box];");
    let phases = if plan.operation.is_reversed() {
        [Phase::Kubernetes, Phase::Infrastructure]
    } else {
        [Phase::Infrastructure, Phase::Kubernetes]
    };
    let mut drawn: Vec<(Phase, Vec<NodeIndex>)> = Vec::new();
    for phase in phases {
        let members: Vec<NodeIndex> = plan.order.iter().copied().filter(|&n| graph.project(n).phase == phase).collect();
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "  subgraph {} {{\n    label={};",
            quote(&format!("cluster_{phase}")),
            quote(&format!("{phase} phase"))
        );
        for &node in &members {
            let project = graph.project(node);
            // The wave in the label: the phase order may draw a project further right than the
            // wave it starts in (one that needs no cluster starts with the first).
            let number = numbers.of_node(graph, plan, node);
            let label = format!("{}\\n{}\\nwave {number}", project.path, project.description);
            let _ = writeln!(out, "    {} [label={}];", path(node), quote(&label));
        }
        for wave in &plan.waves {
            let same: Vec<String> =
                wave.iter().filter(|&&node| graph.project(node).phase == phase).map(|&n| path(n)).collect();
            if same.len() > 1 {
                let _ = writeln!(out, "    {{ rank=same; {}; }}", same.join("; "));
            }
        }
        let _ = writeln!(out, "  }}");
        drawn.push((phase, members));
    }
    let ancestors = ancestors(plan);
    let edges = reduced_edges(plan, &ancestors);
    let mut phase_edge = None;
    for pair in drawn.windows(2) {
        let ((before, earlier), (after, later)) = (&pair[0], &pair[1]);
        // From the earlier phase's last project to the first project of the later phase that
        // waits for it (directly or not): the edge means "this phase needs that one", so it never
        // lands on a project that needs nothing of the earlier phase. Invisibly to every other
        // project of the later phase that waits for nothing: the later cluster then starts right
        // of the earlier one. Invisible edges beside real ones would only tangle dot's ranking.
        let mut heads: Vec<NodeIndex> = later.clone();
        heads.sort_by_key(|&node| wave_of(node));
        let Some(tail) = earlier.iter().copied().max_by_key(|&node| wave_of(node)) else { continue };
        let needs_tail = |node: &&NodeIndex| ancestors.get(*node).is_some_and(|above| above.contains(&tail));
        let Some(&head) = heads.iter().find(needs_tail).or(heads.first()) else { continue };
        let _ = writeln!(
            out,
            "  {} -> {} [ltail={}, lhead={}, style=bold, color=gray40, label=\"phase order\"];",
            path(tail),
            path(head),
            quote(&format!("cluster_{before}")),
            quote(&format!("cluster_{after}"))
        );
        phase_edge = Some((tail, head));
        let free = |node: &&NodeIndex| plan.step(**node).is_some_and(|step| step.blockers().next().is_none());
        for &other in heads.iter().filter(|node| **node != head).filter(free) {
            let _ = writeln!(out, "  {} -> {} [style=invis];", path(tail), path(other));
        }
    }
    for (blocker, node, cluster) in edges {
        if phase_edge == Some((blocker, node)) {
            continue;
        }
        let style = if cluster { " [style=dashed, label=\"cluster\"]" } else { "" };
        let _ = writeln!(out, "  {} -> {}{style};", path(blocker), path(node));
    }
    out.push_str("}\n");
    out
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace("\\\\n", "\\n"))
}

/// The plan's edges without those another path implies (a transitive reduction): a project that
/// waits for `b`, which waits for `a`, gets no edge from `a`. `(blocker, project, for_cluster)`.
fn reduced_edges(
    plan: &ExecutionPlan,
    ancestors: &HashMap<NodeIndex, BTreeSet<NodeIndex>>,
) -> Vec<(NodeIndex, NodeIndex, bool)> {
    let mut edges = Vec::new();
    for &node in &plan.order {
        let Some(step) = plan.step(node) else { continue };
        let blockers: Vec<(NodeIndex, bool)> = step
            .waits_for
            .iter()
            .map(|&b| (b, false))
            .chain(step.waits_for_cluster.iter().map(|&b| (b, true)))
            .collect();
        for &(blocker, cluster) in &blockers {
            let implied = blockers.iter().any(|&(other, _)| {
                other != blocker && ancestors.get(&other).is_some_and(|above| above.contains(&blocker))
            });
            if !implied {
                edges.push((blocker, node, cluster));
            }
        }
    }
    edges
}

/// Every project a project waits for, directly or not.
fn ancestors(plan: &ExecutionPlan) -> HashMap<NodeIndex, BTreeSet<NodeIndex>> {
    let mut ancestors: HashMap<NodeIndex, BTreeSet<NodeIndex>> = HashMap::new();
    // `plan.order` runs blockers first, so their ancestors are known when a project's are made.
    for &node in &plan.order {
        let mut mine = BTreeSet::new();
        for blocker in plan.step(node).into_iter().flat_map(|step| step.blockers()) {
            mine.insert(blocker);
            mine.extend(ancestors.get(&blocker).into_iter().flatten().copied());
        }
        ancestors.insert(node, mine);
    }
    ancestors
}
