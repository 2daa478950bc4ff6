use serde::Serialize;

use crate::graph::ProjectGraph;
use crate::plan::{ExecutionPlan, Operation};
use crate::provider::Provider;

#[derive(Serialize)]
struct ShowDocument<'a> {
    provider: &'a str,
    operation: Operation,
    order: Vec<&'a str>,
    waves: Vec<Vec<&'a str>>,
    projects: Vec<ProjectEntry<'a>>,
}

#[derive(Serialize)]
struct ProjectEntry<'a> {
    path: &'a str,
    description: &'a str,
    phase: &'a str,
    depends_on: Vec<&'a str>,
}

/// The plan for scripts: `{"provider", "order", "waves", "projects": [{"path", "description", "phase", "depends_on"}]}`.
pub fn json(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan) -> String {
    let path = |node: usize| graph.project(node).path.as_str();
    let document = ShowDocument {
        provider: &provider.name,
        operation: plan.operation,
        order: plan.order.iter().map(|&node| path(node)).collect(),
        waves: plan.waves.iter().map(|wave| wave.iter().map(|&node| path(node)).collect()).collect(),
        projects: plan
            .order
            .iter()
            .map(|&node| {
                let project = graph.project(node);
                ProjectEntry {
                    path: project.path.as_str(),
                    description: &project.description,
                    phase: project.phase.as_str(),
                    depends_on: project.depends_on.iter().map(|dependency| dependency.as_str()).collect(),
                }
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("plain data serialises");
    text.push('\n');
    text
}
