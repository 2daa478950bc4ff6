//! Configuration and secrets: prompts in a real terminal, a strict non-interactive mode, masking.

use serde_json::json;

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn local_workspace(environment: &str) -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    workspace.env_file(environment);
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

/// `runner ARGS` with the real `pulumi` in a pseudo-terminal that answers `script`, with no
/// passphrase in the environment (the terminal gives it).
fn real_pulumi_in_a_terminal(workspace: &Workspace, script: &serde_json::Value, args: &[&str]) -> std::process::Output {
    workspace
        .in_a_terminal(&script.to_string(), args)
        .env("NO_COLOR", "1")
        .env_remove("PULUMI_CONFIG_PASSPHRASE")
        .output()
        .unwrap()
}

#[test]
fn ext_prompts_in_a_terminal_from_an_empty_stack_file_to_a_completed_up() {
    let workspace = local_workspace("PULUMI_STACK=dev\nKUBECONFIG=.runner/kube/config\n");
    workspace.stack_file("dev", "");
    let script = json!([
        {"expect": r"Passphrase of the local Pulumi backend.*: ", "send": "pty-passphrase-1234\r"},
        {"expect": r"Repeat it", "send": "pty-passphrase-1234\r"},
        {"expect": r"\(local:cidr\) \[10\.42\.0\.0/16\]", "send": "10.7.0.0/16\r"},
        {"expect": r"\(local:cluster_name\) \[local-dev\]", "send": "\r"},
        {"expect": r"\(local:k8s_version\)", "send": "\r"},
        {"expect": r"\(local:node_count\) \[3\]", "send": "three\r"},
        {"expect": r"enter a whole number", "send": "5\r"},
        {"expect": r"\(local:registry_host\)", "send": "\r"},
        {"expect": r"\(local:cluster_token\)", "send": "pty-token-5678\r"},
        {"expect": r"Repeat it", "send": "pty-token-5678\r"},
    ]);
    let output = real_pulumi_in_a_terminal(&workspace, &script, &["up", "--provider", "local", "--stack", "dev"]);
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert!(transcript.contains("up: 6 succeeded in"), "{transcript}");
    assert!(
        !transcript.contains("pty-passphrase-1234") && !transcript.contains("pty-token-5678"),
        "a secret was echoed: {transcript}"
    );
    let stack = std::fs::read_to_string(workspace.path("config/pulumi/Pulumi.dev.yaml")).unwrap();
    let parsed: serde_norway::Value = serde_norway::from_str(&stack).unwrap();
    assert_eq!(parsed["config"]["local:cidr"], serde_norway::Value::from("10.7.0.0/16"));
    assert_eq!(parsed["config"]["local:node_count"], serde_norway::Value::from("5"));
    assert_eq!(parsed["config"]["kubernetes:infra_type"], serde_norway::Value::from("local"));
    assert!(parsed["config"]["local:cluster_token"]["secure"].is_string(), "the token is stored encrypted: {stack}");
    assert!(!stack.contains("pty-token-5678"));

    // The same terminal destroys it all once the stack name is typed.
    let script = json!([
        {"expect": r"Passphrase of the local Pulumi backend.*: ", "send": "pty-passphrase-1234\r"},
        {"expect": r"Repeat it", "send": "pty-passphrase-1234\r"},
        {"expect": r"Type the stack name `dev` to destroy them", "send": "dev\r"},
    ]);
    let output = real_pulumi_in_a_terminal(&workspace, &script, &["destroy", "--provider", "local", "--stack", "dev"]);
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert!(
        transcript.contains("`destroy` deletes every resource of 6 projects of `local` in stack `dev`"),
        "{transcript}"
    );
    assert!(transcript.contains("destroy: 6 succeeded in"), "{transcript}");
    assert!(transcript.contains("terminal after exit: echo=on icanon=on"), "{transcript}");
}

#[test]
fn ext_ci_with_an_incomplete_configuration_lists_everything_and_writes_nothing() {
    let workspace = local_workspace("PULUMI_STACK=dev\n");
    workspace.file(
        "providers/strict.toml",
        std::fs::read_to_string(stash_local().join("providers/local.toml")).unwrap().replace(
            "[[config]]\nkey = \"local:cidr\"",
            "[[config]]\nkey = \"local:owner\"\nprompt = \"Owner\"\ndefault_env = \"LOCAL_OWNER\"\n\n[[config]]\nkey = \"local:cidr\"",
        ),
    );
    let before = workspace.listing();
    let output = workspace
        .command(&["up", "--provider", "strict", "--stack", "dev"])
        .env("CI", "true")
        .env_remove("PULUMI_CONFIG_PASSPHRASE")
        .env_remove("LOCAL_CLUSTER_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    for expected in [
        "`PULUMI_CONFIG_PASSPHRASE`",
        "`local:owner`",
        "or set `LOCAL_OWNER`",
        "`local:cluster_token`",
        "runner config set --secret local:cluster_token --provider strict --stack dev --project infrastructure/cluster",
        "or set `LOCAL_CLUSTER_TOKEN`",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in:\n{stderr}");
    }
    assert_eq!(workspace.listing(), before, "nothing may be written");
}

#[test]
fn ext_destroy_and_refresh_never_ask_for_secrets() {
    let workspace = local_workspace("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=never-asked-1234\n");
    // No token anywhere: up would need it, refresh and destroy must not. Nothing is deployed,
    // so refresh runs and fails as `not deployed`; destroy has nothing to do.
    for (args, code) in [
        (["refresh", "--provider", "local", "--stack", "dev", "--non-interactive"].as_slice(), 1),
        (&["destroy", "--provider", "local", "--stack", "dev", "--non-interactive", "--yes"], 0),
    ] {
        let output = workspace.command(args).env_remove("LOCAL_CLUSTER_TOKEN").output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("cluster_token"), "{stderr}");
    }
    let output = workspace
        .command(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"])
        .env_remove("LOCAL_CLUSTER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn ext_secrets_go_to_the_secrets_projects_own_stack() {
    let mut workspace = Workspace::new();
    workspace
        .provider(
            "mara-like",
            r#"
secrets_project = "kubernetes/secrets"
[[project]]
path = "kubernetes/secrets"
phase = "kubernetes"
[[project]]
path = "kubernetes/prometheus"
phase = "kubernetes"
depends_on = ["kubernetes/secrets"]
secrets = [{ key = "prometheus:adminpass", prompt = "Prometheus admin password", default_env = "PROMETHEUS_ADMINPASS" }]
"#,
        )
        // MARA's secrets project keeps its own stack file: no stackConfigDir.
        .file("projects/kubernetes/secrets/Pulumi.yaml", "name: secrets\nruntime: yaml\noutputs:\n  stored: yes\n")
        .project("kubernetes/prometheus")
        .env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=secrets-project-test\nPROMETHEUS_ADMINPASS=prometheus-pass-9999\n");
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    let output = workspace.run(&["up", "--provider", "mara-like", "--stack", "dev", "--non-interactive"]);
    output.expect_code(0);
    let own = std::fs::read_to_string(workspace.path("projects/kubernetes/secrets/Pulumi.dev.yaml")).unwrap();
    let parsed: serde_norway::Value = serde_norway::from_str(&own).unwrap();
    assert!(parsed["config"]["prometheus:adminpass"]["secure"].is_string(), "{own}");
    let shared = std::fs::read_to_string(workspace.path("config/pulumi/Pulumi.dev.yaml")).unwrap_or_default();
    assert!(!shared.contains("prometheus:adminpass") && !shared.contains("prometheus-pass-9999"), "{shared}");
    // A second up finds it set and stores nothing again.
    workspace.run(&["up", "--provider", "mara-like", "--stack", "dev", "--non-interactive"]).expect_code(0);
    assert_eq!(std::fs::read_to_string(workspace.path("projects/kubernetes/secrets/Pulumi.dev.yaml")).unwrap(), own);
}

/// The command printed for a missing secret works exactly as printed (the old hint, a bare
/// `pulumi config set`, lacked the backend URL the runner injects and named no existing stack).
#[test]
fn ext_the_printed_secret_hint_runs_verbatim_and_the_run_then_proceeds() {
    let workspace = local_workspace(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=hint-passphrase-1234\nKUBECONFIG=.runner/kube/config\n",
    );
    let output = workspace
        .command(&[
            "up",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--only",
            "infrastructure/cluster",
            "--with-dependencies",
        ])
        .env("CI", "true")
        .env_remove("LOCAL_CLUSTER_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let hint = stderr
        .split('`')
        .find(|part| part.starts_with("runner config set"))
        .unwrap_or_else(|| panic!("no `runner config set` hint in:\n{stderr}"))
        .to_string();
    let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
    let mut set = workspace.std_command(&args);
    set.env_remove("LOCAL_CLUSTER_TOKEN")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = set.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"hint-token-5678\n").unwrap();
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "`{hint}` failed:\n{}", String::from_utf8_lossy(&done.stderr));
    let stack = std::fs::read_to_string(workspace.path("config/pulumi/Pulumi.dev.yaml")).unwrap();
    assert!(stack.contains("local:cluster_token") && !stack.contains("hint-token-5678"), "{stack}");
    let output = workspace
        .command(&[
            "up",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--only",
            "infrastructure/cluster",
            "--with-dependencies",
        ])
        .env("CI", "true")
        .env_remove("LOCAL_CLUSTER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

/// `outputs --show-secrets` needs the passphrase as `up` does: a terminal is asked for it (and
/// a wrong one is said at the prompt), anything else is told what to set; the passphrase typed
/// is never printed.
#[test]
fn ext_outputs_show_secrets_asks_a_terminal_for_the_passphrase_and_tells_a_pipe_what_to_set() {
    let workspace = local_workspace("PULUMI_STACK=dev\nKUBECONFIG=.runner/kube/config\n");
    workspace
        .command(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"])
        .env("PULUMI_CONFIG_PASSPHRASE", "outputs-passphrase-4321")
        .env("LOCAL_CLUSTER_TOKEN", "outputs-token-8765")
        .output()
        .map(|output| assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr)))
        .unwrap();

    let piped =
        workspace.command(&["outputs", "--provider", "local", "--stack", "dev", "--show-secrets"]).output().unwrap();
    assert_eq!(piped.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        stderr.contains("error: `--show-secrets` needs the passphrase of stack `dev`: set `PULUMI_CONFIG_PASSPHRASE`"),
        "{stderr}"
    );

    let script = json!([
        {"expect": r"Passphrase of the local Pulumi backend.*: ", "send": "not-this-one\r"},
        {"expect": r"Repeat it", "send": "not-this-one\r"},
        {"expect": r"that passphrase does not open stack `dev`; try again", "send": ""},
        {"expect": r"Passphrase of the local Pulumi backend.*: ", "send": "outputs-passphrase-4321\r"},
        {"expect": r"Repeat it", "send": "outputs-passphrase-4321\r"},
    ]);
    let args = ["outputs", "--provider", "local", "--stack", "dev", "--show-secrets"];
    let output = real_pulumi_in_a_terminal(&workspace, &script, &args);
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert!(transcript.contains("token: outputs-token-8765"), "the secret output is shown: {transcript}");
    assert!(!transcript.contains("outputs-passphrase-4321"), "the passphrase was echoed: {transcript}");
}
