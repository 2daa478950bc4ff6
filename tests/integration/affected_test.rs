//! `--affected [REF]` in a real git repository: what a change selects, and why.

use std::process::Command;

use crate::support::{Workspace, BRANCHES};

fn git(workspace: &Workspace, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(workspace.root())
        .env("HOME", workspace.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `a -> b -> d`, and `c` alone, committed twice so `HEAD~1` exists.
fn repository() -> Workspace {
    let workspace = Workspace::new();
    workspace.provider("demo", BRANCHES);
    for project in ["a", "b", "c", "d"] {
        workspace.project(project);
    }
    workspace.env_file("PULUMI_STACK=dev\n").stack_file("dev", "config: {}\n");
    git(&workspace, &["init", "-q", "-b", "main"]);
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "first"]);
    workspace.file("README.md", "hello\n");
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-q", "-m", "second"]);
    workspace
}

/// The projects `show --format json` lists for `args`, and what was printed on stderr.
fn shown(workspace: &Workspace, args: &[&str]) -> (Vec<String>, String) {
    let mut all = vec!["show", "--provider", "demo", "--format", "json"];
    all.extend_from_slice(args);
    let output = workspace.run(&all);
    output.expect_code(0);
    let json: serde_json::Value = serde_json::from_str(&output.stdout()).unwrap();
    let mut projects: Vec<String> = json["projects"]
        .as_array()
        .map(|projects| projects.iter().map(|p| p["path"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    projects.sort();
    (projects, output.stderr())
}

#[test]
fn a_changed_program_selects_exactly_it_and_its_dependents() {
    let workspace = repository();
    workspace.file("projects/b/index.yaml", "changed\n");
    let (projects, stderr) = shown(&workspace, &["--affected"]);
    assert_eq!(projects, ["b", "d"], "{stderr}");
    assert!(stderr.contains("affected: comparing with `HEAD~1` (no remote default branch; merge base"), "{stderr}");
    assert!(stderr.contains("affected: b: `projects/b/index.yaml` changed"), "{stderr}");
    assert!(stderr.contains("affected: 2 of 4 projects selected"), "{stderr}");

    // `--with-dependencies` adds what they need; `--exclude` and `--only` narrow it.
    assert_eq!(shown(&workspace, &["--affected", "--with-dependencies"]).0, ["a", "b", "d"]);
    assert_eq!(shown(&workspace, &["--affected", "--exclude", "d"]).0, ["b"]);
    assert_eq!(shown(&workspace, &["--affected", "--only", "d", "c"]).0, ["d"]);

    // The tree draws only the selection.
    let tree = workspace.run(&["show", "--provider", "demo", "--affected"]);
    tree.expect_code(0);
    assert!(tree.stdout().contains(" b ") || tree.stdout().contains("── b"), "{}", tree.stdout());
    assert!(!tree.stdout().contains("── a") && !tree.stdout().contains("── c"), "{}", tree.stdout());
}

#[test]
fn committed_changes_since_a_ref_count_and_unrelated_files_do_not() {
    let workspace = repository();
    let first = git(&workspace, &["rev-list", "--max-parents=0", "HEAD"]);
    workspace.file("projects/c/Pulumi.yaml", "name: c\nruntime: yaml\ndescription: changed\n");
    git(&workspace, &["commit", "-qam", "change c"]);
    workspace.file("docs/notes.md", "untracked, outside every project\n");
    assert_eq!(shown(&workspace, &["--affected", first.trim()]).0, ["c"]);
    workspace
        .run(&["show", "--provider", "demo", "--affected", "no-such-ref"])
        .expect_code(2)
        .expect_stderr_contains("`--affected no-such-ref`: git cannot compare `no-such-ref` with `HEAD`");
    let (none, stderr) = shown(&workspace, &["--affected", "HEAD"]);
    assert!(none.is_empty() && stderr.contains("affected: no project's files changed"), "{stderr}");
}

#[test]
fn a_changed_shared_stack_file_or_environment_file_selects_all_and_says_why() {
    let workspace = repository();
    workspace.stack_file("dev", "config:\n  demo:size: large\n");
    let (projects, stderr) = shown(&workspace, &["--affected"]);
    assert_eq!(projects, ["a", "b", "c", "d"]);
    assert!(
        stderr
            .contains("affected: every project, because the shared stack file `config/pulumi/Pulumi.dev.yaml` changed"),
        "{stderr}"
    );
    git(&workspace, &["checkout", "--", "config/pulumi/Pulumi.dev.yaml"]);
    workspace.env_file("PULUMI_STACK=dev\nAWS_REGION=eu-west-1\n");
    let (projects, stderr) = shown(&workspace, &["--affected", "HEAD"]);
    assert_eq!(projects, ["a", "b", "c", "d"]);
    assert!(stderr.contains("because the environment file `config/pulumi/environment` changed"), "{stderr}");
}

#[test]
fn a_changed_provider_entry_selects_that_project() {
    let workspace = repository();
    workspace.provider(
        "demo",
        &BRANCHES.replace(
            "path = \"c\"\nphase = \"infrastructure\"",
            "path = \"c\"\nphase = \"infrastructure\"\ndescription = \"now described\"",
        ),
    );
    let (projects, stderr) = shown(&workspace, &["--affected", "HEAD"]);
    assert_eq!(projects, ["c"], "{stderr}");
    assert!(stderr.contains("affected: c: its entry in `providers/demo.toml` changed"), "{stderr}");
}

#[test]
fn the_default_ref_is_the_merge_base_with_the_remote_default_branch() {
    let remote = tempfile::tempdir().unwrap();
    let remote = remote.path().join("origin.git");
    let workspace = repository();
    git(&workspace, &["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
    git(&workspace, &["remote", "add", "origin", remote.to_str().unwrap()]);
    git(&workspace, &["push", "-q", "origin", "main"]);
    git(&workspace, &["remote", "set-head", "origin", "main"]);
    git(&workspace, &["checkout", "-q", "-b", "feature"]);
    workspace.file("projects/a/index.yaml", "changed\n");
    git(&workspace, &["add", "-A"]);
    git(&workspace, &["commit", "-qm", "feature work"]);
    let (projects, stderr) = shown(&workspace, &["--affected"]);
    assert_eq!(projects, ["a", "b", "d"], "{stderr}");
    assert!(
        stderr.contains("affected: comparing with `origin/main` (the remote's default branch; merge base"),
        "{stderr}"
    );
}

#[test]
fn outside_a_git_repository_the_error_says_so() {
    let workspace = Workspace::new();
    workspace.provider("demo", BRANCHES);
    for project in ["a", "b", "c", "d"] {
        workspace.project(project);
    }
    let output = workspace
        .command(&["show", "--provider", "demo", "--affected"])
        .env("GIT_CEILING_DIRECTORIES", workspace.root().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`--affected` compares with git, but"), "{stderr}");
    assert!(stderr.contains("is not inside a git repository"), "{stderr}");
    workspace.run(&["show", "--provider", "demo", "--affected", "no-such-ref"]).expect_code(2);
}
