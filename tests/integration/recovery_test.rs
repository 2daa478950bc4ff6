//! Interrupted and failed runs leave everything recoverable: the history, the stack lock, resume.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::kill;
use crate::support::{Workspace, BRANCHES};

fn workspace(script: &str) -> Workspace {
    Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], script)
}

fn invocations(workspace: &Workspace) -> Vec<Value> {
    workspace.fake_invocations()
}

fn ups(workspace: &Workspace) -> Vec<String> {
    invocations(workspace)
        .into_iter()
        .filter(|line| line["event"] == "start" && line["op"] == "up")
        .map(|line| line["project"].as_str().unwrap().to_string())
        .collect()
}

fn history(workspace: &Workspace) -> Vec<Value> {
    let dir = workspace.path(".runner/history");
    let mut runs: Vec<Value> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| serde_json::from_slice(&std::fs::read(e.path()).unwrap()).expect("history is valid JSON"))
                .collect()
        })
        .unwrap_or_default();
    runs.sort_by(|a, b| a["started"].as_f64().partial_cmp(&b["started"].as_f64()).unwrap());
    runs
}

fn wait_for(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn results(run: &Value) -> Vec<(String, String)> {
    run["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["project"].as_str().unwrap().to_string(), p["result"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn resume_runs_exactly_the_failed_project_and_its_dependents() {
    let workspace = workspace(r#"{"projects": {"a": {"fail": "transient outage"}}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(1);
    let first = history(&workspace);
    assert_eq!(first.len(), 1);
    assert_eq!(
        results(&first[0]),
        [("a", "failed"), ("b", "skipped"), ("c", "succeeded"), ("d", "skipped")]
            .map(|(p, r)| (p.to_string(), r.to_string()))
    );

    workspace.file("fake-script.json", "{}");
    let before = ups(&workspace).len();
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev", "--resume"])
        .expect_code(0)
        .expect_stderr_contains("3 of 4 projects left to run");
    let resumed: Vec<String> = ups(&workspace)[before..].to_vec();
    assert_eq!(resumed, ["a", "b", "d"], "c succeeded before and must not run again");
    let runs = history(&workspace);
    assert_eq!(results(&runs[1]).iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["a", "b", "d"]);
    assert!(results(&runs[1]).iter().all(|(_, r)| r == "succeeded"));
}

#[test]
fn resume_with_nothing_recorded_is_a_usage_error() {
    let workspace = workspace("{}");
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev", "--resume"])
        .expect_code(2)
        .expect_stderr_contains("nothing to resume");
}

#[test]
fn only_and_with_dependencies_select_a_part_of_the_graph() {
    let workspace = workspace("{}");
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--only", "b", "--with-dependencies"]).expect_code(0);
    assert_eq!(ups(&workspace), ["a", "b"]);
    let output = workspace.run(&["show", "--provider", "demo", "--from", "b", "--format", "json"]);
    let json: Value = serde_json::from_str(&output.stdout()).unwrap();
    assert_eq!(json["order"], serde_json::json!(["b", "d"]));
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev", "--only", "zz"])
        .expect_code(2)
        .expect_stderr_contains("unknown project `zz`");
}

#[test]
fn a_second_runner_on_the_same_stack_is_refused_with_the_holders_details() {
    let workspace = workspace(r#"{"projects": {"c": {"hang": true}}}"#);
    let mut first = workspace.spawn_quiet(&["up", "--provider", "demo", "--stack", "dev"]);
    wait_for("c to start", || invocations(&workspace).iter().any(|l| l["project"] == "c" && l["op"] == "up"));
    let second = workspace.run(&["up", "--provider", "demo", "--stack", "dev"]);
    second
        .expect_code(2)
        .expect_stderr_contains(&format!("stack `dev` is in use by another runner: pid {}", first.id()));
    second.expect_stderr_contains("runner up --provider demo --stack dev");
    // Another stack is independent.
    workspace.run(&["validate", "--provider", "demo", "--stack", "other"]).expect_code(0);
    kill(first.id() as i32, 2);
    assert_eq!(first.wait().unwrap().code(), Some(130));
    assert!(!workspace.path(".runner/locks/dev.lock").exists(), "the lock is released on exit");
}

#[test]
fn after_kill_9_the_next_run_reports_the_interrupted_run_and_resume_continues_it() {
    let workspace = workspace(r#"{"projects": {"d": {"hang": true}}}"#);
    let mut runner = workspace.spawn_quiet(&["up", "--provider", "demo", "--stack", "dev"]);
    wait_for("d to start", || invocations(&workspace).iter().any(|l| l["project"] == "d" && l["op"] == "up"));
    // The record is written after the fact, so a loaded machine can start `d` before `b`'s
    // success is on disk; killing then would rightly make resume run `b` again.
    let recorded_before_d = || {
        history(&workspace).first().is_some_and(|run| {
            let done: Vec<_> = results(run).into_iter().filter(|(_, r)| r == "succeeded").map(|(p, _)| p).collect();
            ["a", "b", "c"].iter().all(|p| done.iter().any(|d| d == p))
        })
    };
    wait_for("a, b and c to be recorded as succeeded", recorded_before_d);
    kill(runner.id() as i32, 9);
    runner.wait().unwrap();
    // The double's own process outlives a kill -9 of the runner (its own process group): stop it.
    for line in invocations(&workspace).iter().filter(|l| l["project"] == "d" && l["event"] == "start") {
        kill(line["pid"].as_i64().unwrap() as i32, 9);
    }
    let runs = history(&workspace);
    assert_eq!(runs.len(), 1, "history must be readable after kill -9");
    assert_eq!(runs[0]["state"], "running");

    workspace.file("fake-script.json", "{}");
    let before = ups(&workspace).len();
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--resume"]);
    output
        .expect_code(0)
        .expect_stderr_contains("took over the lock of a runner that is gone")
        .expect_stderr_contains("was interrupted before it finished");
    assert_eq!(ups(&workspace)[before..], ["d".to_string()]);
    let runs = history(&workspace);
    assert_eq!(runs[0]["state"], "interrupted");
    assert_eq!(runs[1]["state"], "finished");
}

/// Pids come back within minutes on a busy host. A lock left by a dead runner whose pid now
/// belongs to a live runner (of another working copy) is stale: it is taken over, and the sweep
/// of the dead runner's children leaves the live runner's `pulumi` alone.
#[test]
fn a_dead_runners_lock_whose_pid_came_back_is_taken_over_without_touching_the_new_holder_of_the_pid() {
    let live = workspace(r#"{"projects": {"c": {"hang": true}}}"#);
    let mut runner = live.spawn_quiet(&["up", "--provider", "demo", "--stack", "dev"]);
    let pulumi_of_c = || {
        invocations(&live)
            .iter()
            .find(|l| l["project"] == "c" && l["op"] == "up" && l["event"] == "start")
            .and_then(|l| l["pid"].as_i64())
    };
    wait_for("c to start", || pulumi_of_c().is_some());
    let c = pulumi_of_c().unwrap() as i32;
    let holder: Value = serde_json::from_slice(&std::fs::read(live.path(".runner/locks/dev.lock")).unwrap()).unwrap();
    assert_eq!(holder["pid"], runner.id(), "{holder}");
    let start_ticks = holder["start_ticks"].as_u64().expect("the lock names its runner's start tick");

    // The dead runner had the live one's pid, and started at another tick.
    let copy = workspace("{}");
    let mut dead = holder.clone();
    dead["start_ticks"] = (start_ticks - 1).into();
    dead["command"] = "runner up --provider demo --stack dev".into();
    copy.file(".runner/locks/dev.lock", serde_json::to_vec(&dead).unwrap());
    copy.run(&["up", "--provider", "demo", "--stack", "dev"])
        .expect_code(0)
        .expect_stderr_contains(&format!("took over the lock of a runner that is gone (pid {}", runner.id()))
        .expect_stderr_lacks("left running by that runner");
    assert!(kill(c, 0) == 0, "the live runner's `pulumi` was stopped");
    assert_eq!(runner.try_wait().unwrap(), None, "the live runner ended");
    kill(runner.id() as i32, 2);
    assert_eq!(runner.wait().unwrap().code(), Some(130));
}

/// `status` and `history` read the record of a run where `c` failed: stated whole, the run's
/// id, times and durations redacted.
#[test]
fn status_and_history_read_the_record() {
    let workspace = workspace(r#"{"projects": {"c": {"fail": "nope"}}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(1);
    let redactions = Redactions::of(&workspace);
    runner_snapshot!(
        "status",
        Redactions::of(&workspace).status_table(),
        workspace.std_command(&["status", "--provider", "demo", "--stack", "dev"])
    );
    runner_snapshot!("history", redactions.history_table(), workspace.std_command(&["history"]));

    let empty = Workspace::new();
    runner_snapshot!("history_of_no_run", Redactions::of(&empty), empty.std_command(&["history"]));
}

/// A pulumi cancelled early can exit without stopping its language host, which runs in a
/// process group of its own: the runner stops what the cancelled pulumi left, and says so.
/// A pulumi that ends normally stops its own, and the runner leaves everything alone.
#[test]
fn a_language_host_left_by_a_cancelled_pulumi_is_stopped() {
    let workspace = workspace(r#"{"default": {"orphan_plugin": true}, "projects": {"a": {"sleep": 30}}}"#);
    let plugin_of = |project: &str| -> Option<i32> {
        invocations(&workspace)
            .iter()
            .find(|l| l["project"] == project && l["op"] == "up" && l["event"] == "end")
            .and_then(|l| l["plugin_pid"].as_i64())
            .map(|pid| pid as i32)
    };
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z'))
    };
    let runner = workspace
        .std_command(&["up", "--provider", "demo", "--stack", "dev"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its language host started: the cancel meets a pulumi that has one to leave behind.
    workspace.wait_for_fake_mark(Some("a"), "up", "working");
    kill(runner.id() as i32, 2);
    let output = runner.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let plugin = plugin_of("a").expect("the cancelled pulumi recorded its language host");
    wait_for("the language host to be stopped", || !alive(plugin));
    let run_id = history(&workspace)[0]["run_id"].as_str().unwrap().to_string();
    let log = std::fs::read_to_string(workspace.path(&format!(".runner/logs/{run_id}/a.log"))).unwrap();
    assert!(log.contains("stopped 1 process pulumi left running (its language host or plugins)"), "{log}");

    workspace.file("fake-script.json", r#"{"default": {"orphan_plugin": true}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--resume"]).expect_code(0);
    let log = std::fs::read_dir(workspace.path(".runner/logs")).unwrap().flatten().map(|run| run.path().join("a.log"));
    let notes: Vec<String> = log.filter_map(|path| std::fs::read_to_string(path).ok()).collect();
    assert_eq!(notes.iter().filter(|log| log.contains("left running")).count(), 1, "only the cancelled run: {notes:?}");
}
