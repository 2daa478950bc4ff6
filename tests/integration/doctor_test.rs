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
    assert!(stdout.contains("problem  pulumi") && stdout.contains("run `bash scripts/install-pulumi.sh`"), "{stdout}");
    assert!(
        stdout.contains("problem  yaml runtime") && stdout.contains("`pulumi-language-yaml` not on PATH"),
        "{stdout}"
    );
    assert!(stdout.contains("kubectl") && stdout.contains("problem  passphrase"), "{stdout}");
}

#[test]
fn a_missing_pulumi_with_a_cached_build_is_told_to_use_it_not_rebuild() {
    let mut workspace = Workspace::new();
    workspace
        .provider("demo", PROVIDER)
        .project("cluster")
        .env_file("PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=doctor-test\n");
    let bin = workspace.path("cache/pulumi-v3.259.0-yaml-v1.38.1/bin");
    workspace.file("cache/pulumi-v3.259.0-yaml-v1.38.1/bin/pulumi", "#!/bin/sh\n");
    std::fs::set_permissions(bin.join("pulumi"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cache = workspace.path("cache").display().to_string();
    workspace.set_env("PATH", "/nonexistent").set_env("RUNNER_CACHE_DIR", cache);
    let up = workspace.run(&["up", "--provider", "demo", "--non-interactive"]);
    up.expect_code(2).expect_stderr_contains(&format!("hint: a built copy is in `{}`", bin.display()));
    assert!(!up.stderr().contains("10-20 minutes"), "{}", up.stderr());
    let doctor = workspace.run(&["doctor", "--provider", "demo"]);
    assert!(doctor.stdout().contains(&format!("export PATH=\"{}:$PATH\"", bin.display())), "{}", doctor.stdout());
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
