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
    let provider =
        marked(provider(&[("eks", I, &[]), ("kubeconfig", I, &["eks"]), ("app", K, &[])]), &["eks", "kubeconfig"], &[]);
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
    let deps: Vec<Vec<&str>> =
        (0..300).map(|i| if i < 10 { vec![] } else { vec![names[i / 3].as_str(), names[i - 7].as_str()] }).collect();
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
