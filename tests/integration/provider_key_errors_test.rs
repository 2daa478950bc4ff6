//! A wrong `retry`, `ready`, `on_success` or `prerequisites` entry is reported at the line of the
//! key that is wrong, with its TOML path (`ready[1].timeout`), not at its `[[project]]` line:
//! a project with several gates or hooks must say which one.

use crate::support::Workspace;

/// A project `a` (on line 2) followed by `entries`, which start on line 5.
fn provider_with(entries: &str) -> String {
    format!("description = \"demo\"\n[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n{entries}")
}

#[track_caller]
fn expect_error_at(entries: &str, expected: &str) {
    let workspace = Workspace::new();
    workspace.provider("demo", &provider_with(entries)).project("a").project("b");
    let before = workspace.listing();
    let output = workspace.run(&["show", "--provider", "demo"]);
    output.expect_code(2);
    // Paths are printed as the user can open them: here, under the temporary root.
    let stderr = output.stderr().replace(&format!("{}/", workspace.root().display()), "");
    let first = stderr.lines().next().unwrap_or_default();
    assert_eq!(first, format!("error: {expected}"), "stderr was:\n{stderr}");
    assert_eq!(workspace.listing(), before, "a refused provider writes nothing");
}

#[test]
fn retry_attempts_out_of_range() {
    expect_error_at(
        "\n[project.retry]\nbackoff = \"1s\"\nattempts = 0\n",
        "providers/demo.toml:8: `retry.attempts = 0` of `a` must be between 1 and 100",
    );
}

#[test]
fn retry_backoff_that_is_no_duration() {
    expect_error_at(
        "retry = { attempts = 2, backoff = \"soon\" }\n",
        "providers/demo.toml:5: `retry.backoff = \"soon\"` of `a` is not a duration (expected number at 0); write e.g. `\"30s\"` or `\"5m\"`",
    );
}

#[test]
fn the_retry_pattern_that_does_not_compile_is_named() {
    let entries = "retry = { attempts = 2, on = [\n  \"webhook not ready\",\n  \"(unclosed\",\n] }\n";
    let workspace = Workspace::new();
    workspace.provider("demo", &provider_with(entries)).project("a");
    let output = workspace.run(&["show", "--provider", "demo"]);
    output.expect_code(2).expect_stderr_contains(
        "providers/demo.toml:7: `retry.on[1] = \"(unclosed\"` of `a` is not a valid regular expression: ",
    );
}

#[test]
fn the_second_gate_names_its_own_line_and_index() {
    expect_error_at(
        "ready = [\n  { tcp = \"127.0.0.1:1\" },\n  { tcp = \"127.0.0.1:2\", timeout = \"later\" },\n]\n",
        "providers/demo.toml:7: `ready[1].timeout = \"later\"` of `a` is not a duration (expected number at 0); write e.g. `\"30s\"` or `\"5m\"`",
    );
}

#[test]
fn gate_interval_in_an_array_of_tables() {
    expect_error_at(
        "\n[[project.ready]]\ncommand = [\"true\"]\n\n[[project.ready]]\ncommand = [\"true\"]\ninterval = \"often\"\n",
        "providers/demo.toml:11: `ready[1].interval = \"often\"` of `a` is not a duration (expected number at 0); write e.g. `\"30s\"` or `\"5m\"`",
    );
}

#[test]
fn a_gate_url_that_is_not_http_or_https() {
    expect_error_at(
        "ready = [\n  { http = \"ftp://example.test/\" },\n]\n",
        "providers/demo.toml:6: `ready[0].http = \"ftp://example.test/\"` of `a` is not an `http://` or `https://` URL",
    );
    expect_error_at(
        "ready = [{ http = \"https://\" }]\n",
        "providers/demo.toml:5: `ready[0].http = \"https://\"` of `a` is not an `http://` or `https://` URL",
    );
}

#[test]
fn a_gate_with_two_checks_points_at_the_gate() {
    expect_error_at(
        "ready = [\n  { tcp = \"127.0.0.1:1\" },\n\n  { http = \"http://127.0.0.1/\", tcp = \"127.0.0.1:1\" },\n]\n",
        "providers/demo.toml:8: `ready[1]` of `a` needs exactly one of `command = [...]`, `http = \"http(s)://...\"` or `tcp = \"host:port\"`",
    );
}

#[test]
fn a_tcp_gate_without_a_port_and_an_empty_command() {
    expect_error_at(
        "ready = [{ tcp = \"localhost\" }]\n",
        "providers/demo.toml:5: `ready[0].tcp = \"localhost\"` of `a` is not `host:port`",
    );
    expect_error_at(
        "ready = [\n  { command = [] },\n]\n",
        "providers/demo.toml:6: `ready[0].command` of `a` is empty: name a program",
    );
}

#[test]
fn ca_file_belongs_to_http_gates() {
    expect_error_at(
        "\n[[project.ready]]\ntcp = \"127.0.0.1:1\"\nca_file = \"ca.pem\"\n",
        "providers/demo.toml:8: `ready[0].ca_file` of `a` applies to `http` gates only",
    );
}

#[test]
fn an_unknown_gate_key_is_named_at_its_line() {
    let workspace = Workspace::new();
    workspace.provider("demo", &provider_with("ready = [\n  { htp = \"http://127.0.0.1/\" },\n]\n")).project("a");
    workspace
        .run(&["show", "--provider", "demo"])
        .expect_code(2)
        .expect_stderr_contains("providers/demo.toml:6: unknown field `htp`");
}

#[test]
fn the_second_hook_names_its_own_line() {
    expect_error_at(
        "on_success = [\n  { command = { argv = [\"true\"] } },\n  { command = { argv = [\"true\"], timeout = \"eventually\" } },\n]\n",
        "providers/demo.toml:7: `on_success[1].command.timeout = \"eventually\"` of `a` is not a duration (expected number at 0); write e.g. `\"30s\"` or `\"5m\"`",
    );
    expect_error_at(
        "on_success = [\n  { kubeconfig = { output = \"kubeconfig\" } },\n  { command = { argv = [] } },\n]\n",
        "providers/demo.toml:7: `on_success[1].command.argv` of `a` is empty: name a program",
    );
}

#[test]
fn prerequisite_window_that_is_no_duration() {
    expect_error_at(
        "prerequisites = [\n  { project = \"b\", succeeded_within = \"recently\" },\n]\n",
        "providers/demo.toml:6: `prerequisites[0].succeeded_within = \"recently\"` of `a` is not a duration (expected number at 0); write e.g. `\"30s\"` or `\"5m\"`",
    );
}
