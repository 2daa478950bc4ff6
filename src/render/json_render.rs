use serde::Serialize;

use crate::graph::ProjectGraph;
use crate::plan::{forecast_remaining, CriticalPath, ExecutionPlan, Operation, StepProgress};
use crate::provider::Provider;

#[derive(Serialize)]
struct ShowDocument<'a> {
    provider: &'a str,
    operation: Operation,
    /// `-j`: what `expected.schedule_seconds` assumes.
    parallelism: usize,
    order: Vec<&'a str>,
    waves: Vec<Vec<&'a str>>,
    projects: Vec<ProjectEntry<'a>>,
    expected: ExpectedEntry<'a>,
}

/// Seconds from the history; `null` when unknown.
#[derive(Serialize)]
struct ExpectedEntry<'a> {
    total_work_seconds: Option<f64>,
    critical_path_seconds: Option<f64>,
    critical_path: Vec<&'a str>,
    unknown: Vec<&'a str>,
    /// The plan replayed at `parallelism` in the runner's start priority, unknown projects at
    /// the mean of the known: the forecast a run starts with.
    schedule_seconds: Option<f64>,
}

#[derive(Serialize)]
struct ProjectEntry<'a> {
    path: &'a str,
    description: &'a str,
    phase: &'a str,
    depends_on: Vec<&'a str>,
    /// Cluster providers it waits for beyond `depends_on`.
    waits_for_cluster: Vec<&'a str>,
    /// Why it waits, in words (`show` prints the same).
    waits: Vec<String>,
    provides_cluster: bool,
    needs_cluster: bool,
    pool: Option<&'a str>,
    expected_seconds: Option<f64>,
    /// Its readiness gates, checked after its `up` and before any dependent starts.
    ready: &'a [crate::provider::ReadinessGate],
}

/// The plan for scripts: `{"provider", "order", "waves", "projects": [{"path", "description", "phase", "depends_on"}]}`.
/// Fields are only ever added: `benches/report.py` and users' scripts read it.
pub fn json(provider: &Provider, graph: &ProjectGraph, plan: &ExecutionPlan, parallelism: usize) -> String {
    let path = |node: usize| graph.project(node).path.as_str();
    let step = |node: usize| plan.step(node).expect("planned");
    let critical = CriticalPath::of(plan);
    let nothing_known = critical.unknown.len() == plan.len();
    let document = ShowDocument {
        provider: &provider.name,
        operation: plan.operation,
        parallelism,
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
                    waits_for_cluster: step(node).waits_for_cluster.iter().map(|&n| path(n)).collect(),
                    waits: super::why_it_waits(graph, plan, node),
                    provides_cluster: project.provides_cluster,
                    needs_cluster: project.needs_cluster,
                    pool: project.pool.as_deref(),
                    expected_seconds: step(node).expected.map(seconds),
                    ready: &project.ready,
                }
            })
            .collect(),
        expected: ExpectedEntry {
            total_work_seconds: (!nothing_known).then(|| seconds(critical.total_work)),
            critical_path_seconds: (!nothing_known).then(|| seconds(critical.length)),
            critical_path: if nothing_known {
                Vec::new()
            } else {
                critical.projects.iter().map(|&n| path(n)).collect()
            },
            unknown: critical.unknown.iter().map(|&n| path(n)).collect(),
            schedule_seconds: forecast_remaining(plan, parallelism, &vec![StepProgress::Pending; plan.len()])
                .map(seconds),
        },
    };
    let mut text = serde_json::to_string_pretty(&document).expect("plain data serialises");
    text.push('\n');
    text
}

fn seconds(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0).round() / 1000.0
}
