use std::collections::HashMap;
use std::fmt::Write;

use crate::graph::{NodeIndex, ProjectGraph};
use crate::plan::ExecutionPlan;
use crate::provider::{Phase, Provider};

/// Graphviz: one cluster per phase holding all its projects, the phases left to right in the
/// order they run, edges in execution direction. Waves are ranks inside their phase's cluster:
/// a `rank=same` outside a cluster would pull its projects out of it.
pub fn dot(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let path = |node: NodeIndex| quote(graph.project(node).path.as_str());
    // Looked up for every label, rank and phase edge: indexed once, not searched each time.
    let waves: HashMap<NodeIndex, usize> =
        plan.waves.iter().enumerate().flat_map(|(number, wave)| wave.iter().map(move |&node| (node, number))).collect();
    let wave_of = |node: NodeIndex| waves.get(&node).copied().unwrap_or(0);
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
            let label = format!("{}\\n{}\\nwave {}", project.path, project.description, wave_of(node) + 1);
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
    for pair in drawn.windows(2) {
        let ((before, earlier), (after, later)) = (&pair[0], &pair[1]);
        // From the earlier phase's last project to the later phase's first, and invisibly to
        // every other project of the later phase that waits for neither phase: the later cluster
        // then starts right of the earlier one. Invisible edges beside real ones would only
        // tangle dot's ranking (it then draws the clusters overlapping).
        let Some(&tail) = earlier.iter().max_by_key(|&&node| wave_of(node)) else { continue };
        let mut heads: Vec<NodeIndex> = later.clone();
        heads.sort_by_key(|&node| wave_of(node));
        let free = |node: &NodeIndex| plan.step(*node).is_some_and(|step| step.blockers().next().is_none());
        let heads = heads.iter().take(1).chain(heads.iter().skip(1).filter(|node| free(node)));
        for (i, &head) in heads.enumerate() {
            let style = if i == 0 {
                format!(
                    "ltail={}, lhead={}, style=bold, color=gray40, label=\"phase order\"",
                    quote(&format!("cluster_{before}")),
                    quote(&format!("cluster_{after}"))
                )
            } else {
                "style=invis".to_string()
            };
            let _ = writeln!(out, "  {} -> {} [{style}];", path(tail), path(head));
        }
    }
    for &node in &plan.order {
        let step = plan.step(node).expect("planned");
        for &blocker in &step.waits_for {
            let _ = writeln!(out, "  {} -> {};", path(blocker), path(node));
        }
        for &blocker in &step.waits_for_cluster {
            let _ = writeln!(out, "  {} -> {} [style=dashed, label=\"cluster\"];", path(blocker), path(node));
        }
    }
    out.push_str("}\n");
    out
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace("\\\\n", "\\n"))
}
