//! Installing the cluster's kubeconfig keeps the user's own: backup, warnings, no context switch.

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

const USERS_FILE: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n    server: https://prod.example\ncontexts:\n- name: prod\n  context:\n    cluster: prod\n    user: local-dev-admin\ncurrent-context: prod\nusers:\n- name: local-dev-admin\n  user:\n    token: users-own-token-XYZ\n";

#[test]
fn ext_the_users_kubeconfig_is_backed_up_named_and_keeps_its_context() {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    workspace.env_file(
        "PULUMI_STACK=dev\nPULUMI_CONFIG_PASSPHRASE=kube-care-1234\nLOCAL_CLUSTER_TOKEN=cluster-token-1234\n",
    );
    let home = workspace.path("home");
    let kubeconfig = home.join(".kube/config");
    std::fs::create_dir_all(kubeconfig.parent().unwrap()).unwrap();
    std::fs::write(&kubeconfig, USERS_FILE).unwrap();
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("KUBECONFIG", kubeconfig.display().to_string());
    let output = workspace.run(&[
        "up",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--non-interactive",
        "--only",
        "infrastructure/cluster",
        "--with-dependencies",
    ]);
    output.expect_code(0);
    let printed = format!("{}{}", output.stdout(), output.stderr());
    assert!(printed.contains("replaced user `local-dev-admin`, whose content differed"), "{printed}");
    assert!(printed.contains("kubeconfig backed up to"), "{printed}");

    let merged: serde_norway::Value = serde_norway::from_str(&std::fs::read_to_string(&kubeconfig).unwrap()).unwrap();
    assert_eq!(merged["current-context"], "prod", "the user's current context must not switch");
    assert!(merged["contexts"].as_sequence().unwrap().iter().any(|c| c["name"] == "local-dev"));
    let backups: Vec<_> = std::fs::read_dir(kubeconfig.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("config.runner-backup-"))
        .collect();
    assert_eq!(backups.len(), 1);
    assert!(std::fs::read_to_string(backups[0].path()).unwrap().contains("users-own-token-XYZ"));
}
