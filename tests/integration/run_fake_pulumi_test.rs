//! What the real CLI cannot be made to do on demand: failures, crashes, hangs, slow projects,
//! lock conflicts. The test double in `tests/support/fake-pulumi` stands in for `pulumi`.

use serde_json::Value;

use crate::support::kill;
use crate::support::{Workspace, BRANCHES};

fn workspace(script: &str) -> Workspace {
    Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], script)
}

fn invocations(workspace: &Workspace) -> Vec<Value> {
    workspace.fake_invocations()
}

/// (start, end) of each deploy operation per project, from the double's own record.
fn spans(workspace: &Workspace, op: &str) -> Vec<(String, f64, f64)> {
    let all = invocations(workspace);
    let mut spans = Vec::new();
    for start in all.iter().filter(|line| line["event"] == "start" && line["op"] == op) {
        let end = all
            .iter()
            .find(|line| line["event"] == "end" && line["pid"] == start["pid"])
            .expect("every start has an end");
        spans.push((
            start["project"].as_str().unwrap().to_string(),
            start["start"].as_f64().unwrap(),
            end["end"].as_f64().unwrap(),
        ));
    }
    spans
}

fn report(workspace: &Workspace, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(workspace.path(file)).unwrap()).unwrap()
}

fn result_of(report: &Value, project: &str) -> String {
    report["projects"].as_array().unwrap().iter().find(|p| p["project"] == project).unwrap()["result"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_failure_skips_dependents_and_independent_branches_finish() {
    let workspace = workspace(r#"{"projects": {"a": {"fail": "boom: quota exceeded"}}}"#);
    let output = workspace.run(&[
        "up",
        "--provider",
        "demo",
        "--stack",
        "dev",
        "--report",
        "json=report.json",
        "--report",
        "junit=report.xml",
    ]);
    output.expect_code(1).expect_stderr_contains("`a` failed: boom: quota exceeded");
    let report = report(&workspace, "report.json");
    assert_eq!(result_of(&report, "a"), "failed");
    assert_eq!(result_of(&report, "b"), "skipped");
    assert_eq!(result_of(&report, "c"), "succeeded");
    assert_eq!(result_of(&report, "d"), "skipped");
    let junit = std::fs::read_to_string(workspace.path("report.xml")).unwrap();
    assert!(
        junit.contains("<failure message=\"boom: quota exceeded\"")
            && junit.contains("<skipped message=\"skipped: dependency `a` failed\""),
        "{junit}"
    );
    assert!(output.stdout().contains("1 succeeded, 1 failed, 2 skipped, 0 cancelled"), "{}", output.stdout());
}

#[test]
fn a_crash_is_a_failure_with_its_signal() {
    let workspace = workspace(r#"{"projects": {"c": {"crash": true}}}"#);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev"]);
    output.expect_code(1).expect_stderr_contains("`c` failed: `pulumi up` was stopped by signal 9 (SIGKILL)");
    // c is infrastructure, so the kubernetes phase (d) does not start.
    assert!(output.stdout().contains("2 succeeded, 1 failed, 1 skipped"), "{}", output.stdout());
}

#[test]
fn independent_slow_projects_overlap_in_time() {
    // Long enough that c's `stack init` (serialised after a's, a Python start each) fits inside
    // a's operation on a loaded 2-core machine.
    let workspace = workspace(r#"{"default": {"sleep": 3.0}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--parallelism", "4"]).expect_code(0);
    let spans = spans(&workspace, "up");
    let span = |name: &str| spans.iter().find(|s| s.0 == name).unwrap().clone();
    let (a, b, c, d) = (span("a"), span("b"), span("c"), span("d"));
    assert!(a.1 < c.2 && c.1 < a.2, "a and c must overlap: {spans:?}");
    assert!(b.1 >= a.2, "b starts after its dependency a ended: {spans:?}");
    assert!(d.1 >= b.2 && d.1 >= c.2, "kubernetes d starts after the whole infrastructure phase: {spans:?}");
}

#[test]
fn parallelism_one_runs_in_declaration_order_one_at_a_time() {
    let workspace = workspace(r#"{"default": {"sleep": 0.1}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--parallelism", "1"]).expect_code(0);
    // The double appends `start` and `end` lines to one file under a lock, and writes `end`
    // before it exits: one at a time means each start is followed by its own end, no clock needed.
    let lines: Vec<(String, String)> = invocations(&workspace)
        .iter()
        .filter(|line| line["op"] == "up")
        .map(|line| (line["event"].as_str().unwrap().to_string(), line["project"].as_str().unwrap().to_string()))
        .collect();
    let expected: Vec<(String, String)> = ["a", "b", "c", "d"]
        .iter()
        .flat_map(|project| [("start".to_string(), project.to_string()), ("end".to_string(), project.to_string())])
        .collect();
    assert_eq!(lines, expected, "at parallelism 1, in declaration order, never overlapping");
}

#[test]
fn destroy_runs_dependents_first() {
    let workspace = workspace(r#"{"default": {"sleep": 0.05}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    workspace.run(&["destroy", "--provider", "demo", "--stack", "dev", "--yes", "--parallelism", "1"]).expect_code(0);
    let order: Vec<String> = spans(&workspace, "destroy").into_iter().map(|s| s.0).collect();
    assert_eq!(order, ["d", "c", "b", "a"]);
}

#[test]
fn destroy_without_a_terminal_requires_yes() {
    let workspace = workspace("{}");
    workspace
        .run(&["destroy", "--provider", "demo", "--stack", "dev"])
        .expect_code(2)
        .expect_stderr_contains("pass `--yes`");
    assert!(invocations(&workspace).is_empty(), "nothing may run before confirmation");
}

#[test]
fn fail_fast_cancels_running_projects_and_starts_nothing_new() {
    let workspace = workspace(r#"{"projects": {"a": {"fail": "early failure"}, "c": {"hang": true}}}"#);
    let output =
        workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--fail-fast", "--report", "json=report.json"]);
    output.expect_code(1);
    let report = report(&workspace, "report.json");
    assert_eq!(result_of(&report, "a"), "failed");
    assert_eq!(result_of(&report, "c"), "cancelled");
    assert!(matches!(result_of(&report, "b").as_str(), "skipped" | "cancelled"));
}

#[test]
fn a_lock_conflict_is_retried_to_success_and_every_attempt_is_recorded() {
    let workspace = workspace(r#"{"projects": {"c": {"lock_failures": 2}}}"#);
    let provider = BRANCHES.replace(
        "path = \"c\"\nphase = \"infrastructure\"",
        "path = \"c\"\nphase = \"infrastructure\"\nretry = { attempts = 3, backoff = \"100ms\" }",
    );
    workspace.provider("demo", &provider);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--report", "json=report.json"]);
    // The double says "locked" without leaving a lock: read again, the lock is released, so the
    // retry starts at once instead of after the backoff.
    output
        .expect_code(0)
        .expect_stderr_contains("attempt 1 failed")
        .expect_stderr_contains("the lock is released); retrying now");
    let report = report(&workspace, "report.json");
    let c = report["projects"].as_array().unwrap().iter().find(|p| p["project"] == "c").unwrap();
    assert_eq!(c["result"], "succeeded");
    assert_eq!(c["attempts"], 3);
    assert_eq!(c["retried"].as_array().unwrap().len(), 2);
    assert!(c["retried"][0].as_str().unwrap().contains("the stack is currently locked"), "{c}");
    let ups = invocations(&workspace)
        .into_iter()
        .filter(|l| l["event"] == "start" && l["op"] == "up" && l["project"] == "c")
        .count();
    assert_eq!(ups, 3);
    let history_dir = workspace.path(".runner/history");
    let history: Value = serde_json::from_slice(
        &std::fs::read(std::fs::read_dir(history_dir).unwrap().next().unwrap().unwrap().path()).unwrap(),
    )
    .unwrap();
    let record = history["projects"].as_array().unwrap().iter().find(|p| p["project"] == "c").unwrap();
    assert_eq!(record["attempts"], 3);
    assert_eq!(record["retries"].as_array().unwrap().len(), 2);
}

#[test]
fn a_lock_held_too_long_fails_with_pulumis_words() {
    let workspace = workspace(r#"{"projects": {"c": {"lock_failures": 5}}}"#);
    let provider = BRANCHES.replace(
        "path = \"c\"\nphase = \"infrastructure\"",
        "path = \"c\"\nphase = \"infrastructure\"\nretry = { attempts = 2, backoff = \"50ms\" }",
    );
    workspace.provider("demo", &provider);
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev"])
        .expect_code(1)
        .expect_stderr_contains("the stack is currently locked");
}

#[test]
fn a_program_error_is_never_retried() {
    let workspace = workspace(r#"{"projects": {"c": {"fail": "an unhandled error occurred: boom"}}}"#);
    let provider = BRANCHES.replace(
        "path = \"c\"\nphase = \"infrastructure\"",
        "path = \"c\"\nphase = \"infrastructure\"\nretry = { attempts = 5, backoff = \"10ms\", on = [\"error\"] }",
    );
    workspace.provider("demo", &provider);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(1);
    let ups = invocations(&workspace)
        .into_iter()
        .filter(|l| l["event"] == "start" && l["op"] == "up" && l["project"] == "c")
        .count();
    assert_eq!(ups, 1);
}

#[test]
fn a_missing_stack_is_created_once() {
    let workspace = workspace(r#"{"default": {"missing_stack": true}}"#);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    let inits =
        invocations(&workspace).into_iter().filter(|line| line["event"] == "start" && line["op"] == "init").count();
    assert_eq!(inits, 4);
}

#[test]
fn ctrl_c_cancels_running_projects_and_exits_130() {
    let workspace = workspace(r#"{"projects": {"c": {"hang": true}}, "default": {"sleep": 0.2}}"#);
    let child = workspace
        .std_command(&["up", "--provider", "demo", "--stack", "dev", "--report", "json=report.json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    workspace.wait_for_fake_mark(Some("c"), "up", "working");
    kill(child.id() as i32, 2);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    let report = report(&workspace, "report.json");
    assert_eq!(result_of(&report, "c"), "cancelled");
    let c_end = invocations(&workspace)
        .into_iter()
        .find(|line| line["project"] == "c" && line["event"] == "end" && line["op"] == "up")
        .expect("c was stopped");
    // The double exits 255 after a graceful cancel, as `pulumi` does on its first SIGINT.
    assert_eq!(c_end["exit"], 255, "{c_end}");
    let log = std::fs::read_to_string(workspace.path("fake-state/invocations.jsonl")).unwrap();
    assert!(!log.contains("\"signal\": \"SIGKILL\""), "one Ctrl-C must not kill: {log}");
}

#[test]
fn verbose_prefixes_output_and_logs_are_written() {
    let workspace = workspace(r#"{"default": {"resources": 1}}"#);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--verbose"]);
    output.expect_code(0).expect_stderr_contains("[a] ");
    let logs: Vec<String> =
        workspace.listing().into_iter().filter(|f| f.starts_with(".runner/logs/") && f.ends_with("a.log")).collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = std::fs::read_to_string(workspace.path(&logs[0])).unwrap();
    assert!(log.contains("runner: succeeded"), "{log}");
}

#[test]
fn environment_file_values_reach_pulumi_and_options_do_not() {
    let workspace = workspace("{}");
    workspace.env_file("PULUMI_STACK=dev\nFROM_FILE=file-wins\nPULUMI_OPTION_SKIP_PREVIEW=false\n");
    let output = workspace
        .command(&["up", "--provider", "demo"])
        .env("FROM_FILE", "process-loses")
        .env("PULUMI_OPTION_PARALLEL", "1")
        .env("FAKE_PULUMI_RECORD_ENV", "FROM_FILE,PULUMI_SKIP_UPDATE_CHECK")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let starts: Vec<Value> =
        invocations(&workspace).into_iter().filter(|line| line["event"] == "start" && line["op"] == "up").collect();
    for start in &starts {
        let argv: Vec<&str> = start["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert!(
            argv.contains(&"--non-interactive") && argv.contains(&"--skip-preview") && argv.contains(&"--event-log"),
            "{argv:?}"
        );
        assert!(argv.iter().any(|a| a.starts_with("organization/")), "fully qualified stack: {argv:?}");
        let env = start["env"].as_object().unwrap();
        assert_eq!(env["FROM_FILE"], "file-wins");
        assert_eq!(env["PULUMI_SKIP_UPDATE_CHECK"], "true");
        assert!(env.keys().all(|key| !key.starts_with("PULUMI_OPTION_")), "{env:?}");
    }
    assert_eq!(starts.len(), 4);
}

#[test]
fn a_second_ctrl_c_kills_and_names_the_stacks_left_locked() {
    let workspace = workspace(r#"{"projects": {"c": {"hang": true, "ignore_sigint": true}}}"#);
    let child = workspace
        .std_command(&["up", "--provider", "demo", "--stack", "dev"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // It ignores SIGINT from here on; the runner's first Ctrl-C reaches it, the second kills.
    workspace.wait_for_fake_mark(Some("c"), "up", "working");
    kill(child.id() as i32, 2);
    workspace.wait_for_fake_mark(Some("c"), "up", "sigint_ignored");
    kill(child.id() as i32, 2);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("killing running projects"), "{stderr}");
    assert!(
        stderr.contains("stack `organization/c/dev` may still be locked")
            && stderr.contains("run `runner unlock --provider demo --stack dev`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("stack `organization/a/dev` may still be locked"),
        "only stacks left locked are named: {stderr}"
    );
}

/// A provider's `failure_hints`: the first whose text is in a failure is shown under its error
/// line (terminal, CI footer) and kept in the JSON report; a failure it does not match gets none.
#[test]
fn a_failure_the_provider_knows_is_shown_with_its_hint() {
    let workspace = workspace(
        r#"{"projects": {"a": {"fail": "dial tcp 127.0.0.1:6443: connect: connection refused"}, "c": {"fail": "boom"}}}"#,
    );
    let hints = "failure_hints = [{ contains = \"no such host\", hint = \"check the DNS\" }, \
                 { contains = \"connection refused\", hint = \"start the cluster: `make cluster`\" }]";
    let provider = BRANCHES
        .replace(
            "path = \"a\"\nphase = \"infrastructure\"",
            &format!("path = \"a\"\nphase = \"infrastructure\"\n{hints}"),
        )
        .replace(
            "path = \"c\"\nphase = \"infrastructure\"",
            &format!("path = \"c\"\nphase = \"infrastructure\"\n{hints}"),
        );
    workspace.provider("demo", &provider);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--report", "json=report.json"]);
    output.expect_code(1);
    let stderr = output.stderr();
    let a = stderr.find("error: `a` failed").expect("a's error");
    assert!(
        stderr[a..].lines().nth(1).is_some_and(|line| line == "  hint: start the cluster: `make cluster`"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("hint:").count(), 1, "only a's failure matches:\n{stderr}");
    let report = report(&workspace, "report.json");
    let failure_of = |project: &str| {
        report["projects"].as_array().unwrap().iter().find(|p| p["project"] == project).unwrap()["failure"].clone()
    };
    assert_eq!(failure_of("a")["hint"], "start the cluster: `make cluster`");
    assert!(failure_of("c").get("hint").is_none(), "{}", failure_of("c"));
}
