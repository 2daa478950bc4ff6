use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{hermetic_runner, path_with, real_pulumi_dir, Workspace};

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
    let mut command = workspace.std_command(&["doctor", "--provider", "demo"]);
    command.env_remove("PULUMI_CONFIG_PASSPHRASE");
    runner_snapshot!(Redactions::of(&workspace), command);
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
    let redactions = Redactions::of(&workspace);
    runner_snapshot!(
        "cached_build_up",
        redactions,
        workspace.std_command(&["up", "--provider", "demo", "--non-interactive"])
    );
    runner_snapshot!("cached_build_doctor", redactions, workspace.std_command(&["doctor", "--provider", "demo"]));
}

#[test]
fn ext_doctor_is_happy_with_the_real_toolchain() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", PROVIDER).project("cluster").env_file("PULUMI_CONFIG_PASSPHRASE=doctor-test\n");
    workspace.set_env("PATH", path_with(&real_pulumi_dir()));
    runner_snapshot!(found_programs(&workspace), workspace.std_command(&["doctor", "--provider", "demo"]));
}

#[test]
fn completions_need_no_repository() {
    let dir = tempfile::tempdir().unwrap();
    let redactions = Redactions::for_root(dir.path());
    runner_snapshot!("completions_bash", redactions, hermetic_runner(dir.path(), &["completions", "bash"]));
    runner_snapshot!("completions_zsh", redactions, hermetic_runner(dir.path(), &["completions", "zsh"]));
    runner_snapshot!("completions_fish", redactions, hermetic_runner(dir.path(), &["completions", "fish"]));
}

/// `projects/mara` ships only manifests: doctor says so, and names the missing credentials.
#[test]
fn ext_doctor_names_manifests_without_programs_and_missing_cloud_credentials() {
    let mut workspace = Workspace::new();
    let repository = crate::support::repository();
    crate::support::copy_tree(&repository.join("providers"), &workspace.path("providers"));
    crate::support::copy_tree(&repository.join("projects/mara"), &workspace.path("projects/mara"));
    workspace.env_file("PULUMI_CONFIG_PASSPHRASE=doctor-test\n");
    workspace.set_env("PATH", path_with(&real_pulumi_dir()));
    let mut command = workspace.std_command(&["doctor", "--provider", "aws"]);
    command.env_remove("AWS_ACCESS_KEY_ID").env_remove("AWS_PROFILE").env_remove("AWS_WEB_IDENTITY_TOKEN_FILE");
    runner_snapshot!(found_programs(&workspace), command);
}

/// Where this machine keeps `kubectl` and `python3` is its own business.
fn found_programs(workspace: &Workspace) -> Redactions {
    Redactions::of(workspace).with(r"\bat \S+/(kubectl|python3)\b", "at [PATH]/$1")
}

/// A program that declares Kubernetes resources needs the `kubernetes` plugin, which cannot be
/// downloaded everywhere: doctor looks for it in Pulumi's plugin folder before the first `up`
/// would fail on it, and says how to install it.
#[test]
fn doctor_names_a_resource_plugin_the_programs_need_and_how_to_install_it() {
    let mut workspace = Workspace::new();
    workspace.provider("demo", "[[project]]\npath = \"app\"\nphase = \"kubernetes\"\n");
    workspace.file(
        "projects/app/Pulumi.yaml",
        "name: app\nruntime: yaml\nresources:\n  k8s:\n    type: pulumi:providers:kubernetes\n  ns:\n    type: kubernetes:core/v1:Namespace\n  kept:\n    type: pulumi:index:Stash\n    properties:\n      input: x\n",
    );
    let home = workspace.path("home");
    workspace.set_env("HOME", home.display().to_string()).set_env("PATH", "/nonexistent");
    let missing = workspace.run(&["doctor", "--provider", "demo"]);
    missing.expect_code(2);
    let line = |stdout: &str, check: &str| stdout.lines().find(|line| line.contains(check)).map(str::to_string);
    let found = line(&missing.stdout(), "kubernetes plugin").unwrap_or_else(|| panic!("{}", missing.stdout()));
    assert!(found.starts_with("problem") && found.contains("`pulumi plugin install resource kubernetes`"), "{found}");

    // What `pulumi plugin install` leaves: the folder, without a `.partial` marker.
    std::fs::create_dir_all(home.join(".pulumi/plugins/resource-kubernetes-v4.25.0")).unwrap();
    let installed = workspace.run(&["doctor", "--provider", "demo"]);
    let found = line(&installed.stdout(), "kubernetes plugin").unwrap();
    assert!(found.starts_with("ok") && found.contains("kubernetes-4.25.0 installed"), "{found}");
}
