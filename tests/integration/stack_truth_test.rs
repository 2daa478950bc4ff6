//! `status`, `drift` and `outputs` tell what the backend holds, not what this checkout
//! remembers: a destroyed or never deployed environment never reads as healthy. Against the real
//! `pulumi` on the shipped `local` provider.

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn local_provider() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&example.replace("KUBECONFIG=.runner/kube/config", "KUBECONFIG=home/kube/config"));
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

#[test]
fn ext_a_destroyed_environment_fails_drift_and_status_says_the_stacks_are_empty() {
    let workspace = local_provider();
    let run = |args: &[&str]| workspace.run(args);
    let up = run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    assert_eq!(up.code(), 0, "{}", up.stderr());
    let drift = run(&["drift", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    assert_eq!(drift.code(), 0, "a deployed environment with no drift: {}", drift.stderr());
    let status = run(&["status", "--provider", "local", "--stack", "dev"]);
    assert!(status.stdout().contains("no drift"), "{}", status.stdout());
    assert!(status.stdout().contains("resources"), "{}", status.stdout());

    let destroy = run(&["destroy", "--provider", "local", "--stack", "dev", "--non-interactive", "--yes"]);
    assert_eq!(destroy.code(), 0, "{}", destroy.stderr());
    let drift = run(&["drift", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    assert_eq!(drift.code(), 1, "a torn-down environment is no clean bill of health: {}", drift.stderr());
    assert!(drift.stderr().contains("hold nothing (destroyed, or never deployed)"), "{}", drift.stderr());
    assert!(!drift.stderr().contains("no drift"), "{}", drift.stderr());
    let status = run(&["status", "--provider", "local", "--stack", "dev"]);
    assert!(status.stdout().contains("empty (destroyed, or never updated)"), "{}", status.stdout());
    assert!(!status.stdout().contains("no drift"), "a drift verdict of a stack now empty: {}", status.stdout());
    let outputs = run(&["outputs", "--provider", "local", "--stack", "dev"]);
    assert_eq!(outputs.code(), 1, "{}", outputs.stderr());
    assert!(outputs.stdout().contains("infrastructure/cluster  (not deployed on stack `dev`)"), "{}", outputs.stdout());
}

#[test]
fn ext_drift_of_a_stack_never_deployed_writes_and_asks_nothing() {
    let workspace = local_provider();
    let environment = std::fs::read_to_string(workspace.path("config/pulumi/environment")).unwrap();
    workspace.env_file(&environment.replace("PULUMI_STACK=dev", "PULUMI_STACK=qa"));
    let before = workspace.listing();
    let drift = workspace.run(&["drift", "--provider", "local", "--stack", "qa", "--non-interactive"]);
    assert_eq!(drift.code(), 1, "{}", drift.stderr());
    assert!(drift.stderr().contains("hold nothing"), "{}", drift.stderr());
    assert!(!workspace.path("config/pulumi/Pulumi.qa.yaml").exists(), "drift wrote a stack file");
    let created: Vec<String> = workspace
        .listing()
        .into_iter()
        .filter(|file| !before.contains(file) && file.contains(".pulumi/stacks/"))
        .collect();
    assert!(created.is_empty(), "drift created stacks: {created:?}");
    assert!(!drift.stderr().contains("--resume"), "nothing to resume: {}", drift.stderr());
}
