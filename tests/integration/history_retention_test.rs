//! The history keeps a bounded number of runs per stack, and what prerequisites need survives
//! pruning. Against the real `pulumi` on a local file backend.

use crate::support::{path_with, real_pulumi_dir, Workspace};

fn records(workspace: &Workspace) -> Vec<serde_json::Value> {
    let mut runs: Vec<serde_json::Value> = std::fs::read_dir(workspace.path(".runner/history"))
        .unwrap()
        .flatten()
        .map(|entry| serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap())
        .collect();
    runs.sort_by(|a, b| a["started"].as_f64().partial_cmp(&b["started"].as_f64()).unwrap());
    runs
}

#[test]
fn ext_runner_history_keep_bounds_the_records_and_the_success_index_outlives_them() {
    let mut workspace = Workspace::new();
    let backend = workspace.path(".state");
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string())
        .set_env("RUNNER_HISTORY_KEEP", "2");
    workspace
        .provider("one", "[[project]]\npath = \"hello\"\nphase = \"infrastructure\"\n")
        .file("projects/hello/Pulumi.yaml", "name: hello\nruntime: yaml\noutputs:\n  greeting: hi\n");
    let up = ["up", "--provider", "one", "--stack", "dev", "--non-interactive"];
    workspace.run(&up).expect_code(0);
    workspace.run(&["preview", "--provider", "one", "--stack", "dev", "--non-interactive"]).expect_code(0);
    workspace.run(&["refresh", "--provider", "one", "--stack", "dev", "--non-interactive"]).expect_code(0);

    let operations: Vec<String> =
        records(&workspace).iter().map(|run| run["operation"].as_str().unwrap().to_string()).collect();
    assert_eq!(operations, ["preview", "refresh"], "the oldest run (the up) was pruned");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(workspace.path(".runner/last-success/dev.json")).unwrap()).unwrap();
    let entries = index["entries"].as_array().unwrap();
    let operations_known: Vec<&str> = entries.iter().map(|entry| entry["operation"].as_str().unwrap()).collect();
    assert!(operations_known.contains(&"up"), "the pruned up's success is still known: {index}");
    assert!(entries.iter().all(|entry| entry["project"] == "hello" && entry["provider"] == "one"), "{index}");

    workspace.set_env("RUNNER_HISTORY_KEEP", "none");
    workspace.run(&up).expect_code(2).expect_stderr_contains("`RUNNER_HISTORY_KEEP` must be a whole number");
}
