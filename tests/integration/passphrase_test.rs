//! A wrong passphrase stops every command that needs it with one error, before anything runs,
//! against the real `pulumi` on the shipped `local` provider.

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

fn local_provider(passphrase: &str) -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    set_passphrase(&workspace, passphrase);
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

fn set_passphrase(workspace: &Workspace, passphrase: &str) {
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    let environment = example
        .replace("KUBECONFIG=.runner/kube/config", "KUBECONFIG=home/kube/config")
        .replace("PULUMI_CONFIG_PASSPHRASE=local-dev-passphrase", &format!("PULUMI_CONFIG_PASSPHRASE={passphrase}"));
    workspace.env_file(&environment);
}

#[test]
fn ext_a_wrong_passphrase_stops_every_command_before_anything_runs() {
    let workspace = local_provider("the-right-one");
    let deployed = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    assert_eq!(deployed.code(), 0, "{}", deployed.stderr());
    let backend_before = workspace.listing();

    set_passphrase(&workspace, "a-wrong-one");
    let commands: [&[&str]; 6] = [
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive"],
        &["refresh", "--provider", "local", "--stack", "dev", "--non-interactive"],
        &["drift", "--provider", "local", "--stack", "dev", "--non-interactive"],
        &["validate", "--provider", "local", "--stack", "dev"],
        &["outputs", "--provider", "local", "--stack", "dev", "--show-secrets"],
        &["destroy", "--provider", "local", "--stack", "dev", "--non-interactive", "--yes"],
    ];
    for args in commands {
        let output = workspace.run(args);
        let stderr = output.stderr();
        assert_eq!(output.code(), 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("`PULUMI_CONFIG_PASSPHRASE` from `config/pulumi/environment` does not open stack `dev`"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("a-wrong-one") && !stderr.contains("the-right-one"), "{args:?}: {stderr}");
        assert!(!stderr.contains("infrastructure/network"), "no project started: {args:?}: {stderr}");
    }
    let secret = workspace.run(&["config", "set", "demo:token", "--secret", "--provider", "local", "--stack", "dev"]);
    assert_eq!(secret.code(), 2, "refused before the value is asked for: {}", secret.stderr());

    let doctor = workspace.run(&["doctor", "--provider", "local"]);
    assert!(
        doctor.stdout().contains("does not open stack `dev`") || doctor.stderr().contains("does not open stack `dev`"),
        "{}\n{}",
        doctor.stdout(),
        doctor.stderr()
    );
    assert_ne!(doctor.code(), 0);

    let backend_after: Vec<String> = workspace
        .listing()
        .into_iter()
        .filter(|file| !file.starts_with(".runner/logs/") && !file.starts_with(".runner/history/"))
        .collect();
    let backend_before: Vec<String> = backend_before
        .into_iter()
        .filter(|file| !file.starts_with(".runner/logs/") && !file.starts_with(".runner/history/"))
        .collect();
    assert_eq!(backend_after, backend_before, "nothing was written to the backend");

    set_passphrase(&workspace, "the-right-one");
    let again = workspace.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    assert_eq!(again.code(), 0, "{}", again.stderr());
}
