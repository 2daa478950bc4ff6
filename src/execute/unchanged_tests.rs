//! Dependents are skipped only when the backend proves their stack is as an `up` made with the
//! same inputs and upstream outputs left it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::scripted_cli::{ScriptedBackend, ScriptedCli};
use super::*;
use crate::graph::{test_provider, ProjectGraph};
use crate::plan::{ExecutionPlan, Operation};
use crate::provider::{Phase, ProjectPath};
use crate::secrets::SecretMask;

fn graph() -> Arc<ProjectGraph> {
    let spec: &[(&str, Phase, &[&str])] = &[
        ("network", Phase::Infrastructure, &[]),
        ("cluster", Phase::Infrastructure, &["network"]),
        ("app", Phase::Infrastructure, &["cluster"]),
    ];
    Arc::new(ProjectGraph::build(&test_provider(spec)).unwrap())
}

fn outputs(json: serde_json::Value) -> OperationOutcome {
    let progress = OperationProgress { stack_outputs: json.as_object().cloned(), ..Default::default() };
    OperationOutcome { succeeded: true, progress, ..Default::default() }
}

/// One `up` of every project, `network` changed and the others only its dependents.
async fn run(cli: ScriptedCli, skip: bool) -> (HashMap<String, ProjectReport>, Vec<String>) {
    let graph = graph();
    let plan = ExecutionPlan::full(&graph, Operation::Up);
    let candidates =
        if skip { [ProjectPath::new("cluster"), ProjectPath::new("app")].into() } else { Default::default() };
    let context = LifecycleContext {
        graph: Arc::clone(&graph),
        operation: Operation::Up,
        environment: Default::default(),
        mask: SecretMask::default(),
        planned: graph.projects().iter().map(|project| project.path.clone()).collect(),
        unchanged: UnchangedRule::new(candidates, HashMap::new()),
    };
    let lifecycle = ProjectLifecycle::new(cli, context);
    let cli = Arc::clone(&lifecycle.cli);
    let (events, mut receiver) = EventSender::channel(256);
    let drain = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let reports = Executor::new(graph, plan, lifecycle, 4, false).run(events, Cancellation::new()).await;
    drain.await.unwrap();
    (reports.into_iter().map(|report| (report.project.to_string(), report)).collect(), cli.calls())
}

fn scripted(backend: &Arc<Mutex<ScriptedBackend>>, network: serde_json::Value) -> ScriptedCli {
    let inputs = ["network", "cluster", "app"].map(|p| (p.to_string(), format!("inputs of {p}"))).into();
    ScriptedCli { inputs, backend: Arc::clone(backend), ..Default::default() }
        .script("network", vec![outputs(network)])
        .script("cluster", vec![outputs(serde_json::json!({"endpoint": "https://k"}))])
        .script("app", vec![outputs(serde_json::json!({}))])
}

#[tokio::test]
async fn dependents_run_only_when_an_output_they_read_changed() {
    let backend = Arc::default();
    let (_, calls) = run(scripted(&backend, serde_json::json!({"cidr": "10.0.0.0/16"})), true).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "nothing was deployed yet: all run");

    let (same, calls) = run(scripted(&backend, serde_json::json!({"cidr": "10.0.0.0/16"})), true).await;
    assert_eq!(calls, ["up network"]);
    assert_eq!(same["cluster"].result, ProjectResult::Unchanged);
    assert_eq!(same["cluster"].reason.as_deref(), Some("outputs of network are the same"));
    assert_eq!(same["app"].result, ProjectResult::Unchanged, "what the skipped cluster feeds is unchanged too");
    assert!(same["cluster"].started.is_none());

    let (changed, calls) = run(scripted(&backend, serde_json::json!({"cidr": "10.1.0.0/16"})), true).await;
    assert_eq!(calls, ["up network", "up cluster"], "the cluster's own outputs stayed: app is skipped");
    assert_eq!(changed["cluster"].result, ProjectResult::Succeeded);
    assert_eq!(changed["app"].result, ProjectResult::Unchanged);
}

#[tokio::test]
async fn without_the_rule_with_other_inputs_or_a_stack_changed_since_everything_runs() {
    let backend = Arc::default();
    run(scripted(&backend, serde_json::json!({"cidr": "a"})), true).await;
    let (_, calls) = run(scripted(&backend, serde_json::json!({"cidr": "a"})), false).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "`--no-skip-unchanged`");

    let mut cli = scripted(&backend, serde_json::json!({"cidr": "a"}));
    cli.inputs.insert("cluster".into(), "its folder changed".into());
    let (_, calls) = run(cli, true).await;
    assert_eq!(calls, ["up network", "up cluster"], "the cluster's own inputs changed");

    let mut cli = scripted(&backend, serde_json::json!({"cidr": "a"}));
    cli.inputs.clear();
    let (_, calls) = run(cli, true).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "inputs that cannot be told never skip");

    // Destroyed, refreshed or updated by hand since: the backend no longer proves the last `up`.
    run(scripted(&backend, serde_json::json!({"cidr": "a"})), true).await;
    backend.lock().unwrap().last_up.remove("app");
    let (_, calls) = run(scripted(&backend, serde_json::json!({"cidr": "a"})), true).await;
    assert_eq!(calls, ["up network", "up app"], "only what the backend cannot prove runs");
}

#[tokio::test]
async fn an_upstream_changed_by_another_checkout_is_seen_in_the_backend() {
    let backend = Arc::default();
    run(scripted(&backend, serde_json::json!({"cidr": "a"})), true).await;
    // Another checkout deployed the cluster with other outputs; this one never saw them.
    backend
        .lock()
        .unwrap()
        .outputs
        .insert("cluster".into(), serde_json::json!({"endpoint": "https://other"}).as_object().cloned().unwrap());
    let (reports, calls) = run(scripted(&backend, serde_json::json!({"cidr": "a"})), true).await;
    assert_eq!(calls, ["up network", "up app"], "the cluster's inputs are the same, app's upstream is not");
    assert_eq!(reports["cluster"].result, ProjectResult::Unchanged);
}
