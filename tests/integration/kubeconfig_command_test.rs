//! `runner kubeconfig`: the cluster's kubeconfig installed again from its stack's outputs, as a
//! CI job on another machine than the cluster's needs it; against the real `pulumi`.

use crate::support::{copy_tree, stash_local, Workspace, BRANCHES};

fn local_workspace() -> Workspace {
    let workspace = Workspace::with_real_pulumi();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    workspace.file("providers/local.toml", std::fs::read(stash_local().join("providers/local.toml")).unwrap());
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&example);
    workspace
}

#[test]
fn ext_kubeconfig_reinstalls_the_clusters_context_from_its_stack_output() {
    let workspace = local_workspace();
    let kubeconfig = workspace.path(".runner/kube/config");
    // Nothing deployed yet: nothing to install, and a failure that says so.
    let output = workspace.run(&["kubeconfig", "--provider", "local", "--stack", "dev"]);
    output.expect_code(1).expect_stderr_contains("not deployed on stack `dev`");
    assert!(!kubeconfig.exists());

    workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]).expect_code(0);
    let installed = std::fs::read_to_string(&kubeconfig).unwrap();
    // Another machine: the same checkout without the file the hook wrote.
    std::fs::remove_file(&kubeconfig).unwrap();
    let output = workspace.run(&["kubeconfig", "--provider", "local", "--stack", "dev"]);
    output
        .expect_code(0)
        .expect_stderr_contains("kubeconfig context `local-dev` of `infrastructure/cluster` installed");
    let again = std::fs::read_to_string(&kubeconfig).unwrap();
    let parse = |text: &str| serde_norway::from_str::<serde_norway::Value>(text).unwrap();
    assert_eq!(parse(&again), parse(&installed), "a re-derived kubeconfig differs from the hook's");
    assert!(!output.stderr().contains("local-dev-fake-token"), "{}", output.stderr());
}

#[test]
fn kubeconfig_without_a_cluster_project_is_a_usage_error() {
    let workspace = Workspace::new();
    workspace.provider("branches", BRANCHES);
    for project in ["a", "b", "c", "d"] {
        workspace.project(project);
    }
    let output = workspace.run(&["kubeconfig", "--provider", "branches", "--stack", "dev"]);
    output.expect_code(2).expect_stderr_contains("no `provides_cluster` project with a `kubeconfig` hook");
}
