use crate::support::{path_with, real_pulumi_dir, Workspace};

const PROVIDER: &str = r#"
[[project]]
path = "cluster"
phase = "infrastructure"
on_success = [{ kubeconfig = { output = "kubeconfig" } }]
"#;

#[test]
fn doctor_reports_each_problem_with_its_fix() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("cluster");
    workspace.set_env("PATH", "/nonexistent");
    let output =
        workspace.command(&["doctor", "--provider", "demo"]).env_remove("PULUMI_CONFIG_PASSPHRASE").output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("problem  pulumi") && stdout.contains("run `scripts/install-pulumi.sh`"), "{stdout}");
    assert!(
        stdout.contains("problem  yaml runtime") && stdout.contains("`pulumi-language-yaml` not on PATH"),
        "{stdout}"
    );
    assert!(stdout.contains("kubectl") && stdout.contains("problem  passphrase"), "{stdout}");
}

#[test]
fn doctor_is_happy_with_the_real_toolchain() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("cluster").env_file("PULUMI_CONFIG_PASSPHRASE=doctor-test\n");
    workspace.set_env("PATH", path_with(&real_pulumi_dir()));
    let output = workspace.run(&["doctor", "--provider", "demo"]);
    output.expect_code(0);
    assert!(output.stdout().contains("ok       pulumi") && output.stdout().contains("v3."), "{}", output.stdout());
}

#[test]
fn completions_need_no_repository() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let output = assert_cmd::Command::cargo_bin("runner")
            .unwrap()
            .current_dir(dir.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(String::from_utf8_lossy(&output.stdout).contains("runner"), "{shell}");
    }
}

/// `projects/mara` ships only manifests: doctor says so, and names the missing credentials.
#[test]
fn doctor_names_manifests_without_programs_and_missing_cloud_credentials() {
    let mut workspace = Workspace::new();
    let repository = crate::support::repository();
    crate::support::copy_tree(&repository.join("providers"), &workspace.path("providers"));
    crate::support::copy_tree(&repository.join("projects/mara"), &workspace.path("projects/mara"));
    workspace.env_file("PULUMI_CONFIG_PASSPHRASE=doctor-test\n");
    workspace.set_env("PATH", path_with(&real_pulumi_dir()));
    let output = workspace
        .command(&["doctor", "--provider", "aws"])
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_WEB_IDENTITY_TOKEN_FILE")
        .env("HOME", workspace.path("home"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("problem  programs") && stdout.contains("no program for runtime `python`"), "{stdout}");
    assert!(stdout.contains("problem  cloud credentials") && stdout.contains("`AWS_PROFILE`"), "{stdout}");
}
