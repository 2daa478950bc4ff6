//! The run record follows what happened to the stacks since, over the test double: `--resume`
//! refuses after another operation, folds in runs with `--only`, and every operation interrupted
//! twice in a row (with history, so with forecasts) still ends recorded.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::kill;
use crate::support::{Workspace, BRANCHES};

fn workspace(script: &str) -> Workspace {
    Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], script)
}

fn started(workspace: &Workspace, op: &str) -> Vec<String> {
    workspace
        .fake_invocations()
        .into_iter()
        .filter(|line| line["event"] == "start" && line["op"] == op)
        .map(|line| line["project"].as_str().unwrap().to_string())
        .collect()
}

fn history(workspace: &Workspace) -> Vec<Value> {
    let mut runs: Vec<Value> = std::fs::read_dir(workspace.path(".runner/history"))
        .map(|entries| {
            entries.flatten().map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap()).collect()
        })
        .unwrap_or_default();
    runs.sort_by(|a, b| a["started"].as_f64().partial_cmp(&b["started"].as_f64()).unwrap());
    runs
}

const DEMO: [&str; 4] = ["--provider", "demo", "--stack", "dev"];

fn args<'a>(operation: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![operation];
    all.extend(DEMO);
    all.extend(more);
    all
}

#[test]
fn up_resumed_after_a_full_destroy_is_refused_and_deploys_nothing() {
    let workspace = workspace(r#"{"projects": {"b": {"fail": "quota", "fail_on": ["up"]}}}"#);
    workspace.run(&args("up", &[])).expect_code(1);
    workspace.run(&args("destroy", &["--yes"])).expect_code(0);
    let ups = started(&workspace, "up").len();
    workspace.file("fake-script.json", "{}");
    let resumed = workspace.run(&args("up", &["--resume"]));
    resumed.expect_code(2).expect_stderr_contains("cannot resume run `");
    resumed.expect_stderr_contains("ran `destroy` on it");
    resumed.expect_stderr_contains("without `--resume`");
    assert_eq!(started(&workspace, "up").len(), ups, "nothing deployed on destroyed dependencies");
}

#[test]
fn destroy_resumed_after_a_full_up_is_refused() {
    let workspace = workspace(r#"{"projects": {"b": {"fail": "in use", "fail_on": ["destroy"]}}}"#);
    workspace.run(&args("up", &[])).expect_code(0);
    workspace.run(&args("destroy", &["--yes"])).expect_code(1);
    workspace.file("fake-script.json", "{}");
    workspace.run(&args("up", &[])).expect_code(0);
    let destroys = started(&workspace, "destroy").len();
    let resumed = workspace.run(&args("destroy", &["--yes", "--resume"]));
    resumed.expect_code(2).expect_stderr_contains("ran `up` on it");
    assert_eq!(started(&workspace, "destroy").len(), destroys, "no destroy claims done on a half-destroyed graph");
}

#[test]
fn a_failed_run_with_only_folds_into_what_resume_sees() {
    let workspace = workspace(r#"{"projects": {"a": {"fail": "outage", "fail_on": ["up"]}}}"#);
    workspace.run(&args("up", &[])).expect_code(1);
    workspace.file("fake-script.json", r#"{"projects": {"c": {"fail": "quota", "fail_on": ["up"]}}}"#);
    workspace.run(&args("up", &["--only", "c"])).expect_code(1);
    // `status` shows both failures; so does `--resume`.
    let status = workspace.run(&["status", "--provider", "demo", "--stack", "dev"]).stdout();
    for project in ["a", "c"] {
        let line = status.lines().find(|line| line.starts_with(&format!("{project} "))).unwrap();
        assert!(line.contains("failed"), "{status}");
    }
    workspace.file("fake-script.json", "{}");
    let before = started(&workspace, "up").len();
    workspace.run(&args("up", &["--resume"])).expect_code(0).expect_stderr_contains("4 of 4 projects left to run");
    let mut resumed = started(&workspace, "up")[before..].to_vec();
    resumed.sort();
    assert_eq!(resumed, ["a", "b", "c", "d"]);
    // Everything succeeded since: nothing is left.
    workspace.run(&args("up", &["--resume"])).expect_code(0).expect_stderr_contains("0 of 4 projects left to run");
}

#[test]
fn another_checkout_sharing_the_backend_is_seen_in_the_stack_history() {
    let mut first = workspace(r#"{"projects": {"b": {"fail": "quota", "fail_on": ["up"]}}}"#);
    let backend = format!("file://{}", first.path("shared-backend").display());
    first.set_env("PULUMI_BACKEND_URL", backend.clone());
    first.run(&args("up", &[])).expect_code(1);
    // A second working copy over the same backend (and the test double's state) destroys.
    let mut second = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], "{}");
    second.set_env("FAKE_PULUMI_STATE", first.path("fake-state").display().to_string());
    second.set_env("PULUMI_BACKEND_URL", backend);
    second.run(&args("destroy", &["--yes"])).expect_code(0);
    first.file("fake-script.json", "{}");
    let resumed = first.run(&args("up", &["--resume"]));
    resumed.expect_code(2).expect_stderr_contains("`a`: destroy succeeded at");
    resumed.expect_stderr_contains("(not by a run of this working copy)");
}

#[test]
fn a_resume_of_this_copys_own_runs_is_not_refused_by_their_history() {
    let workspace = workspace(r#"{"projects": {"b": {"fail": "quota", "fail_on": ["up"]}}}"#);
    workspace.run(&args("up", &[])).expect_code(1);
    workspace.file("fake-script.json", "{}");
    let resumed = workspace.run(&args("up", &["--resume"]));
    resumed.expect_code(0).expect_stderr_contains("2 of 4 projects left to run");
    assert!(!resumed.stderr().contains("cannot check what changed"), "{}", resumed.stderr());
}

fn wait_for(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every operation, interrupted twice in a row while `c` hangs: the second run has the first
/// in its history (so a forecast), and both end interrupted, recorded, with no panic.
#[test]
fn every_operation_interrupted_twice_in_a_row_is_recorded_both_times() {
    let workspace = workspace("{}");
    workspace.run(&args("up", &[])).expect_code(0);
    let mut expected_runs = 1;
    for operation in ["up", "refresh", "drift", "preview", "destroy"] {
        for _ in 0..2 {
            workspace.file("fake-script.json", r#"{"projects": {"c": {"hang": true}}}"#);
            let count = |workspace: &Workspace| {
                let ops = if operation == "drift" { "refresh" } else { operation };
                started(workspace, ops).iter().filter(|p| *p == "c").count()
            };
            let before = count(&workspace);
            let child = workspace
                .std_command(&args(operation, &["--yes"]))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            wait_for("c to start", || count(&workspace) > before);
            kill(child.id() as i32, 2);
            let output = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(130), "{operation}: {stderr}");
            assert!(!stderr.contains("panicked") && !stderr.contains("internal fault"), "{operation}: {stderr}");
            expected_runs += 1;
            let runs = history(&workspace);
            assert_eq!(runs.len(), expected_runs);
            let last = runs.last().unwrap();
            assert_eq!(last["operation"], operation);
            assert_eq!(last["state"], "interrupted", "{operation}: {last}");
            for project in last["projects"].as_array().unwrap() {
                assert_ne!(project["result"], "running", "{operation}: {last}");
                assert_ne!(project["result"], "pending", "{operation}: {last}");
            }
        }
    }
    // And once more without interruption: the destroy after two interrupted ones.
    workspace.file("fake-script.json", "{}");
    for operation in ["destroy", "destroy"] {
        let output = workspace.run(&args(operation, &["--yes"]));
        output.expect_code(0);
        assert!(!output.stderr().contains("internal fault"), "{}", output.stderr());
    }
}
