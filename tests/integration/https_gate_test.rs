//! `http` readiness gates through the whole `runner`, against loopback servers: `https` with a
//! private CA trusted through the gate's `ca_file` or `SSL_CERT_FILE`, refused without either,
//! and IPv6 with a chunked answer. One run uses the real `pulumi`.

use serde_json::Value;

use crate::support::Workspace;

#[path = "../support/test_servers.rs"]
pub(crate) mod test_servers;

use test_servers::{PrivateCa, CHUNKED, HEALTHY};

/// `webhook` carries the gate; `secrets` depends on it and must wait for it.
fn gated_provider(gate: &str) -> String {
    format!("[[project]]\npath = \"webhook\"\nphase = \"infrastructure\"\nready = [{gate}]\n\n[[project]]\npath = \"secrets\"\nphase = \"infrastructure\"\ndepends_on = [\"webhook\"]\n")
}

fn fake_workspace(gate: &str) -> Workspace {
    Workspace::with_fake_pulumi(&gated_provider(gate), &["webhook", "secrets"], "{}")
}

fn result_of(workspace: &Workspace, project: &str) -> Value {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(workspace.path("report.json")).unwrap()).unwrap();
    report["projects"].as_array().unwrap().iter().find(|p| p["project"] == project).unwrap()["result"].clone()
}

const UP: &[&str] = &["up", "--provider", "demo", "--stack", "dev", "--report", "json=report.json"];

#[test]
fn an_https_gate_trusts_the_private_ca_of_its_ca_file() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("127.0.0.1:0", Some(ca.server_config.clone()), HEALTHY);
    // Relative to the repository root, like every path in a provider file.
    let gate = format!(
        "{{ http = \"https://localhost:{}/healthz\", expect_body = \"healthy\", ca_file = \"certs/ca.pem\", timeout = \"30s\", interval = \"200ms\" }}",
        address.port()
    );
    let workspace = fake_workspace(&gate);
    workspace.file("certs/ca.pem", &ca.ca_pem);
    let output = workspace.run(UP);
    output.expect_code(0).expect_stderr_contains("ready: GET https://localhost:");
    assert_eq!(result_of(&workspace, "secrets"), "succeeded");
}

#[test]
fn ssl_cert_file_is_the_other_way_to_trust_a_private_ca() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("127.0.0.1:0", Some(ca.server_config.clone()), HEALTHY);
    let gate =
        format!("{{ http = \"https://127.0.0.1:{}/\", timeout = \"30s\", interval = \"200ms\" }}", address.port());
    let mut workspace = fake_workspace(&gate);
    workspace.file("ca.pem", &ca.ca_pem);
    let ca_file = workspace.path("ca.pem").display().to_string();
    workspace.set_env("SSL_CERT_FILE", ca_file);
    workspace.run(UP).expect_code(0);
    assert_eq!(result_of(&workspace, "secrets"), "succeeded");
}

#[test]
fn an_untrusted_certificate_fails_the_gate_and_skips_the_dependent() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("127.0.0.1:0", Some(ca.server_config.clone()), HEALTHY);
    let gate =
        format!("{{ http = \"https://localhost:{}/\", timeout = \"1s\", interval = \"200ms\" }}", address.port());
    let mut workspace = fake_workspace(&gate);
    // An empty trust store of the runner's own: the machine's authorities do not know this CA
    // either, but the test must not depend on what the machine trusts.
    workspace.file("empty.pem", "");
    let empty = workspace.path("empty.pem").display().to_string();
    workspace.set_env("SSL_CERT_FILE", empty);
    let output = workspace.run(UP);
    output.expect_code(1).expect_stderr_contains("did not pass within 1s");
    output.expect_stderr_contains("invalid peer certificate");
    assert_eq!(result_of(&workspace, "webhook"), "failed");
    assert_eq!(result_of(&workspace, "secrets"), "skipped");
}

#[test]
fn an_ipv6_gate_reads_a_chunked_answer() {
    let address = test_servers::serve("[::1]:0", None, CHUNKED);
    let gate = format!(
        "{{ http = \"http://[::1]:{}/healthz\", expect_body = \"all ready\", timeout = \"30s\", interval = \"200ms\" }}",
        address.port()
    );
    let workspace = fake_workspace(&gate);
    workspace.run(UP).expect_code(0).expect_stderr_contains("ready: GET http://[::1]:");
    assert_eq!(result_of(&workspace, "secrets"), "succeeded");
}

#[test]
fn ext_an_https_gate_after_a_real_pulumi_up() {
    let ca = PrivateCa::new();
    let address = test_servers::serve("[::1]:0", Some(ca.server_config.clone()), CHUNKED);
    let gate = format!(
        "{{ http = \"https://[::1]:{}/\", expect_body = \"ready\", ca_file = \"certs/ca.pem\", timeout = \"30s\", interval = \"200ms\" }}",
        address.port()
    );
    let workspace = Workspace::with_real_pulumi();
    workspace
        .provider("demo", &gated_provider(&gate))
        .file("certs/ca.pem", &ca.ca_pem)
        .file("projects/webhook/Pulumi.yaml", "name: webhook\nruntime: yaml\noutputs:\n  url: https://[::1]/\n")
        .file("projects/secrets/Pulumi.yaml", "name: secrets\nruntime: yaml\noutputs:\n  ok: yes\n");
    let output = workspace.run(&[
        "up",
        "--provider",
        "demo",
        "--stack",
        "dev",
        "--non-interactive",
        "--report",
        "json=report.json",
    ]);
    output.expect_code(0).expect_stderr_contains("ready: GET https://[::1]:");
    assert_eq!(result_of(&workspace, "webhook"), "succeeded");
    assert_eq!(result_of(&workspace, "secrets"), "succeeded");
}
