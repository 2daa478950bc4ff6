use std::fmt::Write;

use crate::graph::ProjectGraph;
use crate::plan::ExecutionPlan;
use crate::provider::{Phase, Provider};

/// A Mermaid flowchart, for Markdown documents and pull requests.
pub fn mermaid(_provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let id = |node: usize| format!("p{node}");
    let mut out = String::from("flowchart LR\n");
    for phase in [Phase::Infrastructure, Phase::Kubernetes] {
        let members: Vec<usize> = plan.order.iter().copied().filter(|&n| graph.project(n).phase == phase).collect();
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  subgraph {phase}");
        for node in members {
            let project = graph.project(node);
            let label = format!("{}<br/>{}", project.path, project.description).replace('"', "#quot;");
            let _ = writeln!(out, "    {}[\"{}\"]", id(node), label);
        }
        let _ = writeln!(out, "  end");
    }
    for &node in &plan.order {
        let step = plan.step(node).expect("planned");
        for &blocker in &step.waits_for {
            let _ = writeln!(out, "  {} --> {}", id(blocker), id(node));
        }
        for &blocker in &step.waits_for_cluster {
            let _ = writeln!(out, "  {} -. cluster .-> {}", id(blocker), id(node));
        }
    }
    out
}
