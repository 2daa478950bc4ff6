//! Against the real `pulumi` CLI and YAML language host on a local file backend.

use crate::support::{path_with, real_pulumi_dir, Workspace};

fn real_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    let backend = workspace.path(".state");
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string());
    workspace
}

/// The install proof: two YAML projects, the second reading the first through a StackReference.
#[test]
fn stack_reference_carries_an_output_between_two_projects() {
    let workspace = real_workspace();
    workspace
        .provider(
            "pair",
            r#"
[[project]]
path = "first"
phase = "infrastructure"
[[project]]
path = "second"
phase = "infrastructure"
depends_on = ["first"]
"#,
        )
        .file("projects/first/Pulumi.yaml", "name: first\nruntime: yaml\noutputs:\n  greeting: hello from first\n")
        .file(
            "projects/second/Pulumi.yaml",
            "name: second\nruntime: yaml\nresources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/first/${pulumi.stack}\noutputs:\n  echoed: ${ref.outputs[\"greeting\"]}\n",
        );
    let output =
        workspace.command(&["up", "--provider", "pair", "--stack", "dev", "--non-interactive"]).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let stack_output = std::process::Command::new(real_pulumi_dir().join("pulumi"))
        .args(["stack", "output", "echoed", "--stack", "organization/second/dev", "--non-interactive"])
        .current_dir(workspace.path("projects/second"))
        .env("PULUMI_BACKEND_URL", format!("file://{}", workspace.path(".state").display()))
        .env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .env("HOME", workspace.path("home"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&stack_output.stdout).trim(),
        "hello from first",
        "{}",
        String::from_utf8_lossy(&stack_output.stderr)
    );
}

#[test]
fn installed_pulumi_reports_the_pinned_version() {
    let script = std::fs::read_to_string(crate::support::repository().join("scripts/install-pulumi.sh")).unwrap();
    let pinned = script
        .lines()
        .find_map(|line| line.strip_prefix("PULUMI_VERSION=\"${RUNNER_PULUMI_VERSION:-"))
        .unwrap()
        .trim_end_matches("}\"");
    let output = std::process::Command::new(real_pulumi_dir().join("pulumi"))
        .arg("version")
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), pinned);
}
