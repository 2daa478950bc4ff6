//! A wrong `retry`, `ready`, `on_success` or `prerequisites` entry is reported at the line of the
//! key that is wrong, with its TOML path (`ready[1].timeout`), not at its `[[project]]` line:
//! a project with several gates or hooks must say which one.

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::Workspace;

/// A project `a` (on line 2) followed by `entries`, which start on line 5.
fn provider_with(entries: &str) -> String {
    format!("description = \"demo\"\n[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n{entries}")
}

fn workspace_with(entries: &str) -> Workspace {
    let workspace = Workspace::new();
    workspace.provider("demo", &provider_with(entries)).project("a").project("b");
    workspace
}

/// `runner show` refuses the provider: what it prints is stated whole by a snapshot (named after
/// the test, or `name`), and nothing is written.
macro_rules! expect_error_at {
    ($entries:expr) => {{
        let workspace = workspace_with($entries);
        let before = workspace.listing();
        runner_snapshot!(Redactions::of(&workspace), workspace.std_command(&["show", "--provider", "demo"]));
        assert_eq!(workspace.listing(), before, "a refused provider writes nothing");
    }};
    ($name:expr, $entries:expr) => {{
        let workspace = workspace_with($entries);
        let before = workspace.listing();
        runner_snapshot!($name, Redactions::of(&workspace), workspace.std_command(&["show", "--provider", "demo"]));
        assert_eq!(workspace.listing(), before, "a refused provider writes nothing");
    }};
}

#[test]
fn retry_attempts_out_of_range() {
    expect_error_at!("\n[project.retry]\nbackoff = \"1s\"\nattempts = 0\n");
}

#[test]
fn retry_backoff_that_is_no_duration() {
    expect_error_at!("retry = { attempts = 2, backoff = \"soon\" }\n");
}

#[test]
fn the_retry_pattern_that_does_not_compile_is_named() {
    expect_error_at!("retry = { attempts = 2, on = [\n  \"webhook not ready\",\n  \"(unclosed\",\n] }\n");
}

#[test]
fn the_second_gate_names_its_own_line_and_index() {
    expect_error_at!("ready = [\n  { tcp = \"127.0.0.1:1\" },\n  { tcp = \"127.0.0.1:2\", timeout = \"later\" },\n]\n");
}

#[test]
fn gate_interval_in_an_array_of_tables() {
    expect_error_at!(
        "\n[[project.ready]]\ncommand = [\"true\"]\n\n[[project.ready]]\ncommand = [\"true\"]\ninterval = \"often\"\n"
    );
}

#[test]
fn a_gate_url_that_is_not_http_or_https() {
    expect_error_at!("ftp_url", "ready = [\n  { http = \"ftp://example.test/\" },\n]\n");
    expect_error_at!("https_without_a_host", "ready = [{ http = \"https://\" }]\n");
}

#[test]
fn a_gate_with_two_checks_points_at_the_gate() {
    expect_error_at!(
        "ready = [\n  { tcp = \"127.0.0.1:1\" },\n\n  { http = \"http://127.0.0.1/\", tcp = \"127.0.0.1:1\" },\n]\n"
    );
}

#[test]
fn a_tcp_gate_without_a_port_and_an_empty_command() {
    expect_error_at!("tcp_without_a_port", "ready = [{ tcp = \"localhost\" }]\n");
    expect_error_at!("empty_command", "ready = [\n  { command = [] },\n]\n");
}

#[test]
fn ca_file_belongs_to_http_gates() {
    expect_error_at!("\n[[project.ready]]\ntcp = \"127.0.0.1:1\"\nca_file = \"ca.pem\"\n");
}

#[test]
fn an_unknown_gate_key_is_named_at_its_line() {
    expect_error_at!("ready = [\n  { htp = \"http://127.0.0.1/\" },\n]\n");
}

#[test]
fn the_second_hook_names_its_own_line() {
    expect_error_at!("hook_timeout", "on_success = [\n  { command = { argv = [\"true\"] } },\n  { command = { argv = [\"true\"], timeout = \"eventually\" } },\n]\n");
    expect_error_at!(
        "hook_empty_argv",
        "on_success = [\n  { kubeconfig = { output = \"kubeconfig\" } },\n  { command = { argv = [] } },\n]\n"
    );
}

#[test]
fn prerequisite_window_that_is_no_duration() {
    expect_error_at!("prerequisites = [\n  { project = \"b\", succeeded_within = \"recently\" },\n]\n");
}

#[test]
fn a_kubernetes_gate_names_a_known_kind_and_its_namespace_rules() {
    expect_error_at!("kubernetes_not_kind_slash_name", "ready = [\n  { kubernetes = \"webhook\" },\n]\n");
    expect_error_at!("kubernetes_unknown_kind", "ready = [\n  { kubernetes = \"pod/webhook-0\" },\n]\n");
    expect_error_at!(
        "kubernetes_namespace_on_a_cluster_kind",
        "\n[[project.ready]]\nkubernetes = \"crd/certificates.cert-manager.io\"\nnamespace = \"cert-manager\"\n"
    );
    expect_error_at!(
        "kubernetes_with_a_second_check",
        "ready = [\n  { kubernetes = \"svc/webhook\", tcp = \"127.0.0.1:1\" },\n]\n"
    );
    expect_error_at!(
        "namespace_without_kubernetes",
        "\n[[project.ready]]\ntcp = \"127.0.0.1:1\"\nnamespace = \"demo\"\n"
    );
}

/// `show --format json` states the gate whole: kind, name, the namespace a namespaced kind gets
/// by default, and the context.
#[test]
fn a_kubernetes_gate_is_shown_with_its_object() {
    let workspace = workspace_with(
        "ready = [\n  { kubernetes = \"svc/webhook\", namespace = \"cert-manager\", context = \"kind-dev\" },\n  { kubernetes = \"Deployment/web\" },\n  { kubernetes = \"apiservice/v1beta1.metrics.k8s.io\", timeout = \"2m\" },\n]\n",
    );
    let output = workspace.run(&["show", "--provider", "demo", "--format", "json"]);
    output.expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&output.stdout()).unwrap();
    let project = json["projects"].as_array().unwrap().iter().find(|project| project["path"] == "a").unwrap().clone();
    insta::assert_json_snapshot!(project["ready"]);
    let text = workspace.run(&["show", "--provider", "demo"]);
    text.expect_code(0);
    assert!(text.stdout().contains("kubernetes service cert-manager/webhook in context kind-dev"), "{}", text.stdout());
}

#[test]
fn a_failure_hint_needs_its_text_and_its_advice() {
    expect_error_at!(
        "failure_hint_empty",
        "failure_hints = [\n  { contains = \"refused\", hint = \"start it\" },\n  { contains = \"\", hint = \"anything\" },\n]\n"
    );
    expect_error_at!(
        "failure_hint_unknown_key",
        "failure_hints = [\n  { contains = \"refused\", advice = \"start it\" },\n]\n"
    );
}
