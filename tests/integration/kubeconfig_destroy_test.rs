//! A `destroy` of the project whose hook installed a kubeconfig takes out what it installed (and
//! only that), so the destroyed cluster does not stay the current context without a word.
//! Checked with the real `pulumi` and the real `kubectl` on a kubeconfig in the workspace.

use std::path::Path;
use std::process::Command;

use crate::support::{copy_tree, needs_external, path_with, real_pulumi_dir, stash_local, Workspace};

const USERS_FILE: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n    server: https://prod.example\ncontexts:\n- name: prod\n  context:\n    cluster: prod\n    user: prod-admin\ncurrent-context: prod\nusers:\n- name: prod-admin\n  user:\n    token: users-own-token-XYZ\n";

fn kubectl(kubeconfig: &Path, args: &[&str]) -> std::process::Output {
    needs_external("kubectl");
    Command::new("kubectl")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", kubeconfig.parent().unwrap())
        .output()
        .expect("kubectl runs")
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// The shipped `local` provider with the real `pulumi`, a user's kubeconfig of their own
/// (`USERS_FILE`), and the cluster deployed by `up`: the workspace and that kubeconfig.
fn cluster_up_beside_the_users_kubeconfig() -> (Workspace, std::path::PathBuf) {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    workspace.env_file(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=kube-destroy-1234\nLOCAL_CLUSTER_TOKEN=cluster-token-1234\n",
    );
    let home = workspace.path("home");
    let kubeconfig = home.join(".kube/config");
    std::fs::create_dir_all(kubeconfig.parent().unwrap()).unwrap();
    std::fs::write(&kubeconfig, USERS_FILE).unwrap();
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("KUBECONFIG", kubeconfig.display().to_string());
    let only = ["--only", "infrastructure/cluster", "--with-dependencies"];
    workspace.run(&[&["up"][..], &STACK, &only].concat()).expect_code(0);
    (workspace, kubeconfig)
}

const STACK: [&str; 5] = ["--provider", "local", "--stack", "dev", "--non-interactive"];

#[test]
fn ext_destroy_takes_out_the_context_its_up_installed_and_unsets_it_when_current() {
    let (workspace, kubeconfig) = cluster_up_beside_the_users_kubeconfig();
    let stack = STACK;
    let contexts = stdout(&kubectl(&kubeconfig, &["config", "get-contexts", "-o", "name"]));
    assert_eq!(contexts.lines().collect::<Vec<_>>(), ["local-dev", "prod"], "{contexts}");
    // The user goes on to work with the new cluster.
    assert!(kubectl(&kubeconfig, &["config", "use-context", "local-dev"]).status.success());

    let output = workspace.run(&[&["destroy", "--yes"][..], &stack].concat());
    output.expect_code(0);
    let stderr = output.stderr();
    assert!(
        stderr.contains(
            "kubeconfig: removed context `local-dev`, cluster `local-dev`, user `local-dev-admin` of destroyed \
             `infrastructure/cluster` from `home/.kube/config`; `local-dev` was the current context, now none: \
             pick one with `kubectl config use-context NAME`"
        ),
        "{stderr}"
    );
    let contexts = stdout(&kubectl(&kubeconfig, &["config", "get-contexts", "-o", "name"]));
    assert_eq!(contexts, "prod", "only what `up` installed goes");
    let current = kubectl(&kubeconfig, &["config", "current-context"]);
    assert!(!current.status.success(), "no current context is left pointing at the destroyed cluster");
    let users = stdout(&kubectl(&kubeconfig, &["config", "view", "-o", "jsonpath={.users[*].name}"]));
    assert_eq!(users, "prod-admin");
    let clusters = stdout(&kubectl(&kubeconfig, &["config", "get-clusters"]));
    assert_eq!(clusters.lines().skip(1).collect::<Vec<_>>(), ["prod"], "{clusters}");

    // Destroyed again: nothing of it is left, and nothing more is said.
    let again = workspace.run(&[&["destroy", "--yes"][..], &stack].concat());
    again.expect_code(0);
    assert!(!again.stderr().contains("kubeconfig:"), "{}", again.stderr());
}

#[test]
fn ext_destroy_keeps_the_users_current_context_when_it_is_another() {
    let (workspace, kubeconfig) = cluster_up_beside_the_users_kubeconfig();
    let stack = STACK;
    let output = workspace.run(&[&["destroy", "--yes"][..], &stack].concat());
    output.expect_code(0);
    assert!(output.stderr().contains("kubeconfig: removed context `local-dev`"), "{}", output.stderr());
    assert!(!output.stderr().contains("was the current context"), "{}", output.stderr());
    assert_eq!(stdout(&kubectl(&kubeconfig, &["config", "current-context"])), "prod");
}

/// Another checkout's live cluster installed since under the same names in the shared file: the
/// destroy leaves its context, cluster, user and token, and says so.
#[test]
fn ext_destroy_leaves_another_clusters_entries_under_the_same_name() {
    let (workspace, kubeconfig) = cluster_up_beside_the_users_kubeconfig();
    let set = |args: &[&str]| assert!(kubectl(&kubeconfig, args).status.success(), "{args:?}");
    set(&["config", "set-cluster", "local-dev", "--server", "https://another-checkouts.example"]);
    set(&["config", "set-credentials", "local-dev-admin", "--token", "another-checkouts-token"]);
    let output = workspace.run(&[&["destroy", "--yes"][..], &STACK].concat());
    output.expect_code(0);
    let stderr = output.stderr();
    assert!(
        stderr.contains("kubeconfig: left cluster `local-dev`, user `local-dev-admin` in `home/.kube/config`: no longer what destroyed `infrastructure/cluster` installed"),
        "{stderr}"
    );
    let view = stdout(&kubectl(&kubeconfig, &["config", "view", "--raw", "-o", "jsonpath={.users[*].user.token}"]));
    assert!(view.contains("another-checkouts-token"), "{view}");
    let clusters = stdout(&kubectl(&kubeconfig, &["config", "get-clusters"]));
    assert!(clusters.contains("local-dev"), "{clusters}");
    assert!(!stderr.contains("another-checkouts-token"), "{stderr}");
}
