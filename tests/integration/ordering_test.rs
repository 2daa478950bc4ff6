//! Readiness gates with real local servers, prerequisites with freshness, targeted runs.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::support::Workspace;

fn workspace(provider: &str, projects: &[&str]) -> Workspace {
    Workspace::with_fake_pulumi(provider, projects, "{}")
}

fn invocations(workspace: &Workspace) -> Vec<Value> {
    workspace.fake_invocations()
}

fn starts(workspace: &Workspace) -> Vec<Value> {
    invocations(workspace).into_iter().filter(|line| line["event"] == "start" && line["op"] != "init").collect()
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// Answers 503 until `ready_after` has passed, then 200 with `ready`; returns its port and the
/// moment it became ready.
fn delayed_server(ready_after: Duration) -> (u16, f64) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ready_at = now() + ready_after.as_secs_f64();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(500) {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 2048];
            let _ = stream.read(&mut buffer);
            let answer: &[u8] = if now() >= ready_at {
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nready"
            } else {
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 8\r\nConnection: close\r\n\r\nstarting"
            };
            let _ = stream.write_all(answer);
        }
    });
    (port, ready_at)
}

fn gated_provider(gate: &str) -> String {
    format!("[[project]]\npath = \"webhook\"\nphase = \"infrastructure\"\nready = [{gate}]\n\n[[project]]\npath = \"secrets\"\nphase = \"infrastructure\"\ndepends_on = [\"webhook\"]\n")
}

#[test]
fn an_http_gate_holds_the_dependent_back_until_the_server_answers() {
    let (port, ready_at) = delayed_server(Duration::from_millis(1500));
    let gate = format!("{{ http = \"http://127.0.0.1:{port}/healthz\", expect_body = \"ready\", timeout = \"30s\", interval = \"200ms\" }}");
    let workspace = workspace(&gated_provider(&gate), &["webhook", "secrets"]);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev"]);
    output.expect_code(0).expect_stderr_contains("ready: GET http://127.0.0.1");
    let dependent = starts(&workspace).into_iter().find(|line| line["project"] == "secrets").expect("secrets ran");
    let started = dependent["start"].as_f64().unwrap();
    assert!(started >= ready_at, "the dependent started {:.3}s before the server was ready", ready_at - started);
}

#[test]
fn a_gate_that_never_passes_fails_after_its_timeout_and_skips_dependents() {
    let closed = crate::https_gate_test::test_servers::ClosedPort::hold();
    let port = closed.port;
    let gate = format!("{{ tcp = \"127.0.0.1:{port}\", timeout = \"1s\", interval = \"200ms\" }}");
    let workspace = workspace(&gated_provider(&gate), &["webhook", "secrets"]);
    let output = workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--report", "json=report.json"]);
    output.expect_code(1).expect_stderr_contains(&format!("not ready: tcp 127.0.0.1:{port} did not pass within 1s"));
    output.expect_stderr_contains("last attempt: connect to");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(workspace.path("report.json")).unwrap()).unwrap();
    let result = |name: &str| {
        report["projects"].as_array().unwrap().iter().find(|p| p["project"] == name).unwrap()["result"].clone()
    };
    assert_eq!(result("webhook"), "failed");
    assert_eq!(result("secrets"), "skipped");
    assert!(!starts(&workspace).iter().any(|line| line["project"] == "secrets"));
}

#[test]
fn a_command_gate_passes_on_exit_0() {
    let gate = "{ command = [\"sh\", \"-c\", \"test -e ready-flag || { touch ready-flag; exit 1; }\"], timeout = \"10s\", interval = \"100ms\" }";
    let workspace = workspace(&gated_provider(gate), &["webhook", "secrets"]);
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev"])
        .expect_code(0)
        .expect_stderr_contains("passed after 2 attempts");
}

const PREREQUISITE: &str = r#"
[[project]]
path = "update-creds"
dir = "use-vault"
phase = "infrastructure"
only_as_prerequisite = true
targets = ["urn:pulumi:dev::use-vault::pulumi:providers:vault::creds"]

[[project]]
path = "use-vault"
phase = "infrastructure"
prerequisites = [{ project = "update-creds", succeeded_within = "WINDOW" }]
"#;

fn ops(workspace: &Workspace) -> Vec<(String, bool)> {
    starts(workspace)
        .into_iter()
        .map(|line| {
            let argv: Vec<String> =
                line["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
            (line["op"].as_str().unwrap().to_string(), argv.contains(&"--target".to_string()))
        })
        .collect()
}

#[test]
fn a_prerequisite_runs_first_when_stale_and_not_again_inside_its_window() {
    let workspace = workspace(&PREREQUISITE.replace("WINDOW", "5m"), &["use-vault"]);
    // `show` leaves the prerequisite-only project out of ordinary runs.
    let show = workspace.run(&["show", "--provider", "demo", "--format", "json"]);
    assert_eq!(serde_json::from_str::<Value>(&show.stdout()).unwrap()["order"], serde_json::json!(["use-vault"]));

    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    // The targeted `up` of the provider resource ran before the project's own `up`.
    assert_eq!(ops(&workspace), [("up".to_string(), true), ("up".to_string(), false)]);

    workspace
        .run(&["refresh", "--provider", "demo", "--stack", "dev"])
        .expect_code(0)
        .expect_stderr_contains("prerequisite `update-creds` succeeded");
    assert_eq!(
        ops(&workspace)[2..],
        [("refresh".to_string(), false)],
        "inside the window the prerequisite is not run again"
    );

    let history = workspace.run(&["history"]);
    assert_eq!(history.stdout().lines().count(), 3, "a header and two runs: {}", history.stdout());
}

#[test]
fn a_prerequisite_outside_its_window_runs_again_even_for_destroy() {
    let workspace = workspace(&PREREQUISITE.replace("WINDOW", "1s"), &["use-vault"]);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    std::thread::sleep(Duration::from_millis(1200));
    workspace
        .run(&["destroy", "--provider", "demo", "--stack", "dev", "--yes"])
        .expect_code(0)
        .expect_stderr_contains("has not succeeded within 1s: running it first");
    assert_eq!(ops(&workspace)[2..], [("up".to_string(), true), ("destroy".to_string(), false)]);
}

#[test]
fn a_failed_prerequisite_fails_the_project() {
    let mut workspace = workspace(&PREREQUISITE.replace("WINDOW", "5m"), &["use-vault"]);
    workspace.file(
        "script.json",
        r#"{"projects": {"use-vault": {"fail": "permission denied: token expired", "fail_on": ["up"]}}}"#,
    );
    let script = workspace.path("script.json");
    workspace.set_env("FAKE_PULUMI_SCRIPT", script.display().to_string());
    workspace
        .run(&["refresh", "--provider", "demo", "--stack", "dev"])
        .expect_code(1)
        .expect_stderr_contains("prerequisite `update-creds` failed: permission denied: token expired");
}

#[test]
fn the_cli_target_needs_a_single_project() {
    let workspace = workspace("[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n[[project]]\npath = \"b\"\nphase = \"infrastructure\"\n", &["a", "b"]);
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev", "--target", "urn:x"])
        .expect_code(2)
        .expect_stderr_contains("add `--only PROJECT`");
    workspace
        .run(&["up", "--provider", "demo", "--stack", "dev", "--only", "a", "--target", "urn:pulumi:dev::a::t::r"])
        .expect_code(0);
    let argv = starts(&workspace)[0]["argv"].clone();
    assert!(
        argv.as_array().unwrap().windows(2).any(|w| w[0] == "--target" && w[1] == "urn:pulumi:dev::a::t::r"),
        "{argv}"
    );
}

#[test]
fn refresh_and_target_dependents_become_pulumi_flags() {
    let provider = "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\nrefresh = true\ntargets = [\"urn:pulumi:dev::a::t::r\"]\ntarget_dependents = true\n";
    let workspace = workspace(provider, &["a"]);
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    workspace.run(&["destroy", "--provider", "demo", "--stack", "dev", "--yes"]).expect_code(0);
    let argvs: Vec<Vec<String>> = starts(&workspace)
        .into_iter()
        .map(|line| line["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect())
        .collect();
    let up = &argvs[0];
    assert!(
        up.contains(&"--refresh".into())
            && up.contains(&"--target-dependents".into())
            && up.contains(&"urn:pulumi:dev::a::t::r".into()),
        "{up:?}"
    );
    let destroy = &argvs[1];
    assert!(!destroy.contains(&"--refresh".into()), "destroy takes no --refresh: {destroy:?}");
    assert!(destroy.contains(&"--target".into()), "{destroy:?}");
}
