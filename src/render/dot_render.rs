use std::fmt::Write;

use crate::graph::ProjectGraph;
use crate::plan::ExecutionPlan;
use crate::provider::Provider;

/// Graphviz: one cluster per phase, edges in execution direction, waves as ranks.
pub fn dot(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&provider.name));
    let _ = writeln!(out, "  rankdir=LR;\n  node [shape=box];");
    for phase in [crate::provider::Phase::Infrastructure, crate::provider::Phase::Kubernetes] {
        let members: Vec<usize> = plan.order.iter().copied().filter(|&n| graph.project(n).phase == phase).collect();
        if members.is_empty() {
            continue;
        }
        let _ =
            writeln!(out, "  subgraph {} {{\n    label={};", quote(&format!("cluster_{phase}")), quote(phase.as_str()));
        for node in members {
            let project = graph.project(node);
            let label = format!("{}\\n{}", project.path, project.description);
            let _ = writeln!(out, "    {} [label={}];", quote(project.path.as_str()), quote(&label));
        }
        let _ = writeln!(out, "  }}");
    }
    for wave in &plan.waves {
        if wave.len() > 1 {
            let names: Vec<String> = wave.iter().map(|&n| quote(graph.project(n).path.as_str())).collect();
            let _ = writeln!(out, "  {{ rank=same; {}; }}", names.join("; "));
        }
    }
    for &node in &plan.order {
        let step = plan.step(node).expect("planned");
        for &blocker in &step.waits_for {
            let _ = writeln!(
                out,
                "  {} -> {};",
                quote(graph.project(blocker).path.as_str()),
                quote(graph.project(node).path.as_str())
            );
        }
        for &blocker in &step.waits_for_cluster {
            let _ = writeln!(
                out,
                "  {} -> {} [style=dashed, label=\"cluster\"];",
                quote(graph.project(blocker).path.as_str()),
                quote(graph.project(node).path.as_str())
            );
        }
    }
    out.push_str("}\n");
    out
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace("\\\\n", "\\n"))
}
