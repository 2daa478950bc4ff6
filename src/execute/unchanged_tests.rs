//! Dependents whose inputs and upstream outputs are what their last `up` saw are not run.

use std::collections::HashMap;
use std::sync::Arc;

use super::scripted_cli::ScriptedCli;
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
async fn run(
    seen: &HashMap<ProjectPath, SeenInputs>,
    cli: ScriptedCli,
    skip: bool,
) -> (HashMap<String, ProjectReport>, Vec<String>) {
    let graph = graph();
    let plan = ExecutionPlan::full(&graph, Operation::Up);
    let candidates =
        if skip { [ProjectPath::new("cluster"), ProjectPath::new("app")].into() } else { Default::default() };
    let rule = UnchangedRule::new(DigestSalt::new(b"salt".to_vec()), candidates, Default::default(), seen.clone());
    let context = LifecycleContext {
        graph: Arc::clone(&graph),
        operation: Operation::Up,
        environment: Default::default(),
        mask: SecretMask::default(),
        planned: graph.projects().iter().map(|project| project.path.clone()).collect(),
        unchanged: rule,
    };
    let lifecycle = ProjectLifecycle::new(cli, context);
    let cli = Arc::clone(&lifecycle.cli);
    let (events, mut receiver) = EventSender::channel(256);
    let drain = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let reports = Executor::new(graph, plan, lifecycle, 4, false).run(events, Cancellation::new()).await;
    drain.await.unwrap();
    (reports.into_iter().map(|report| (report.project.to_string(), report)).collect(), cli.calls())
}

fn scripted(network: serde_json::Value) -> ScriptedCli {
    let inputs = ["network", "cluster", "app"].map(|p| (p.to_string(), format!("inputs of {p}"))).into();
    ScriptedCli { inputs, ..Default::default() }
        .script("network", vec![outputs(network)])
        .script("cluster", vec![outputs(serde_json::json!({"endpoint": "https://k"}))])
        .script("app", vec![outputs(serde_json::json!({}))])
}

fn remember(seen: &mut HashMap<ProjectPath, SeenInputs>, reports: &HashMap<String, ProjectReport>) {
    for report in reports.values() {
        if let Some(record) = &report.seen {
            seen.insert(report.project.clone(), record.clone());
        }
    }
}

#[tokio::test]
async fn dependents_run_only_when_an_output_they_read_changed() {
    let mut seen = HashMap::new();
    let (first, calls) = run(&seen, scripted(serde_json::json!({"cidr": "10.0.0.0/16"})), true).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "nothing was recorded yet: all run");
    remember(&mut seen, &first);

    let (same, calls) = run(&seen, scripted(serde_json::json!({"cidr": "10.0.0.0/16"})), true).await;
    assert_eq!(calls, ["up network"]);
    assert_eq!(same["cluster"].result, ProjectResult::Unchanged);
    assert_eq!(same["cluster"].reason.as_deref(), Some("outputs of network are the same"));
    assert_eq!(same["app"].result, ProjectResult::Unchanged, "what the skipped cluster feeds is unchanged too");
    assert!(same["cluster"].seen.is_none() && same["cluster"].started.is_none());
    remember(&mut seen, &same);

    let (changed, calls) = run(&seen, scripted(serde_json::json!({"cidr": "10.1.0.0/16"})), true).await;
    assert_eq!(calls, ["up network", "up cluster"], "the cluster's own outputs stayed: app is skipped");
    assert_eq!(changed["cluster"].result, ProjectResult::Succeeded);
    assert_eq!(changed["app"].result, ProjectResult::Unchanged);
}

#[tokio::test]
async fn without_the_rule_or_with_other_inputs_everything_runs() {
    let mut seen = HashMap::new();
    let (first, _) = run(&seen, scripted(serde_json::json!({"cidr": "a"})), true).await;
    remember(&mut seen, &first);
    let (_, calls) = run(&seen, scripted(serde_json::json!({"cidr": "a"})), false).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "`--no-skip-unchanged`");

    let mut cli = scripted(serde_json::json!({"cidr": "a"}));
    cli.inputs.insert("cluster".into(), "its folder changed".into());
    let (_, calls) = run(&seen, cli, true).await;
    assert_eq!(calls, ["up network", "up cluster"], "the cluster's own inputs changed");

    let mut cli = scripted(serde_json::json!({"cidr": "a"}));
    cli.inputs.clear();
    let (_, calls) = run(&seen, cli, true).await;
    assert_eq!(calls, ["up network", "up cluster", "up app"], "inputs that cannot be told never skip");
}

#[tokio::test]
async fn a_secret_output_counts_as_changed_by_every_up() {
    let secret = serde_json::json!({"token": "[secret]"});
    let mut seen = HashMap::new();
    let (first, _) = run(&seen, scripted(secret.clone()), true).await;
    remember(&mut seen, &first);
    let (_, calls) = run(&seen, scripted(secret), true).await;
    assert_eq!(calls, ["up network", "up cluster"], "a secret's value is never in the event log");
}
