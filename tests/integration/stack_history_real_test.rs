//! The record follows the stacks, against the real `pulumi` on a file backend: destroy with a
//! prerequisite in its plan, `--resume` after another checkout changed the stacks, checks of
//! stacks never deployed, and every operation twice in a row with history.

use std::path::Path;

use serde_json::Value;

use crate::support::{path_with, real_pulumi_dir, real_pulumi_in, Workspace, BRANCHES};

/// A workspace whose `pulumi` is the real one, over the file backend `backend`.
fn real_workspace(backend: &Path) -> Workspace {
    let mut workspace = Workspace::new();
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string());
    workspace
}

fn yaml_project(workspace: &Workspace, path: &str, output: &str) {
    workspace.file(
        &format!("projects/{path}/Pulumi.yaml"),
        format!("name: {path}\nruntime: yaml\noutputs:\n  value: {output}\n"),
    );
}

fn branches(backend: &Path) -> Workspace {
    let workspace = real_workspace(backend);
    workspace.provider("demo", BRANCHES);
    for project in ["a", "b", "c", "d"] {
        yaml_project(&workspace, project, project);
    }
    workspace
}

const DEMO: [&str; 4] = ["--provider", "demo", "--stack", "dev"];

fn args<'a>(operation: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![operation];
    all.extend(DEMO);
    all.extend(more);
    all
}

fn history(workspace: &Workspace) -> Vec<Value> {
    let mut runs: Vec<Value> = std::fs::read_dir(workspace.path(".runner/history"))
        .unwrap()
        .flatten()
        .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap())
        .collect();
    runs.sort_by(|a, b| a["started"].as_f64().partial_cmp(&b["started"].as_f64()).unwrap());
    runs
}

/// `pulumi stack output --json` of one project, straight from the backend.
fn outputs(workspace: &Workspace, backend: &Path, project: &str) -> Value {
    let output = real_pulumi_in(workspace, project, backend)
        .args(["stack", "output", "--json", "--stack", &format!("organization/{project}/dev"), "--non-interactive"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn ext_destroy_never_brings_back_up_a_prerequisite_it_removes() {
    let state = tempfile::tempdir().unwrap();
    let workspace = real_workspace(state.path());
    workspace.provider(
        "creds",
        r#"
[[project]]
path = "creds"
phase = "infrastructure"
[[project]]
path = "app"
phase = "infrastructure"
prerequisites = [{ project = "creds", succeeded_within = "1s" }]
[[project]]
path = "web"
phase = "infrastructure"
depends_on = ["app"]
prerequisites = [{ project = "creds", succeeded_within = "1s" }]
"#,
    );
    for project in ["creds", "app", "web"] {
        yaml_project(&workspace, project, project);
    }
    let creds = ["--provider", "creds", "--stack", "dev"];
    workspace.run(&[&["up"][..], &creds].concat()).expect_code(0);
    // The prerequisite's window is over: an old runner brought `creds` up again beside its destroy.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let destroy = workspace.run(&[&["destroy", "--yes"][..], &creds].concat());
    destroy.expect_code(0).expect_stderr_contains("destroy: 3 succeeded");
    let run = history(&workspace).pop().unwrap();
    let entries = run["projects"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "no prerequisite `up` inside the destroy: {run}");
    assert!(entries.iter().all(|entry| entry["result"] == "succeeded" && entry.get("operation").is_none()), "{run}");
    for project in ["creds", "app", "web"] {
        assert_eq!(outputs(&workspace, state.path(), project), serde_json::json!({}), "{project} was deployed again");
    }
}

#[test]
fn ext_resume_refuses_after_another_checkout_destroyed_the_stacks_and_continues_its_own() {
    let state = tempfile::tempdir().unwrap();
    let first = branches(state.path());
    let broken = "name: b\nruntime: yaml\noutputs:\n  value: ${does_not_exist.value}\n";
    first.file("projects/b/Pulumi.yaml", broken);
    first.run(&args("up", &[])).expect_code(1);
    // Its own runs explain the stacks' history: resuming them is fine.
    yaml_project(&first, "b", "b");
    first.run(&args("up", &["--resume"])).expect_code(0).expect_stderr_contains("2 of 4 projects left to run");

    first.file("projects/b/Pulumi.yaml", broken);
    first.run(&args("up", &[])).expect_code(1);
    // Another working copy over the same backend destroys everything meanwhile.
    let second = branches(state.path());
    second.run(&args("destroy", &["--yes"])).expect_code(0);
    yaml_project(&first, "b", "b");
    let resumed = first.run(&args("up", &["--resume"]));
    resumed.expect_code(2).expect_stderr_contains("cannot resume run `");
    resumed.expect_stderr_contains("`a`: destroy succeeded at");
    assert_eq!(
        outputs(&first, state.path(), "b"),
        serde_json::json!({}),
        "`b` must not be deployed on a destroyed `a`"
    );

    // The same from this copy's own record: an interrupted `up`, then a full `destroy` here.
    first.file("projects/b/Pulumi.yaml", broken);
    first.run(&args("up", &[])).expect_code(1);
    first.run(&args("destroy", &["--yes"])).expect_code(0);
    yaml_project(&first, "b", "b");
    first.run(&args("up", &["--resume"])).expect_code(2).expect_stderr_contains("ran `destroy` on it");
    assert_eq!(outputs(&first, state.path(), "b"), serde_json::json!({}));
}

#[test]
fn ext_drift_refresh_and_outputs_of_stacks_never_deployed_say_not_deployed_and_fail() {
    let state = tempfile::tempdir().unwrap();
    let workspace = branches(state.path());
    let drift = workspace.run(&args("drift", &["--report", "json=drift.json"]));
    drift.expect_code(1).expect_stderr_contains("drift: 4 not deployed");
    assert!(!drift.stdout().contains("no drift"), "{}", drift.stdout());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(workspace.path("drift.json")).unwrap()).unwrap();
    assert_eq!(report["succeeded"], false);
    for project in report["projects"].as_array().unwrap() {
        assert_eq!(project["result"], "not deployed", "{project}");
    }
    let run = history(&workspace).pop().unwrap();
    assert!(run["projects"].as_array().unwrap().iter().all(|p| p["result"] == "not deployed"), "{run}");
    workspace.run(&args("refresh", &[])).expect_code(1).expect_stderr_contains("refresh: 4 not deployed");
    let status = workspace.run(&["status", "--provider", "demo", "--stack", "dev"]).stdout();
    assert!(status.contains("not deployed"), "{status}");
    let runs = workspace.run(&["history", "--stack", "dev"]).stdout();
    assert!(runs.contains("not deployed (4 of 4)"), "{runs}");
    let outputs = workspace.run(&["outputs", "--provider", "demo", "--stack", "dev"]);
    outputs.expect_code(1).expect_stderr_contains("4 of 4 projects not deployed on stack `dev`");
    // Once deployed, the same checks pass.
    workspace.run(&args("up", &[])).expect_code(0);
    workspace.run(&args("drift", &[])).expect_code(0);
    workspace.run(&["outputs", "--provider", "demo", "--stack", "dev"]).expect_code(0);
}

/// Each operation twice in a row, so the second has the first in its history (and a
/// forecast): the second `destroy` of a stack used to panic in a debug build.
#[test]
fn ext_every_operation_twice_in_a_row_with_history() {
    let state = tempfile::tempdir().unwrap();
    let workspace = branches(state.path());
    for operation in ["up", "up", "preview", "preview", "refresh", "refresh", "drift", "drift", "destroy", "destroy"] {
        let output = workspace.run(&args(operation, &["--yes"]));
        output.expect_code(0);
        let stderr = output.stderr();
        assert!(!stderr.contains("panicked") && !stderr.contains("internal fault"), "{operation}: {stderr}");
        assert!(stderr.contains(&format!("{operation}: 4 succeeded")), "{operation}: {stderr}");
    }
    let runs = history(&workspace);
    assert_eq!(runs.len(), 10);
    assert!(runs.iter().all(|run| run["state"] == "finished"));
}
