//! One `pulumi` for every command: the first on the run's PATH (the process's, then the
//! environment file's), for runs, `status` and `--resume` alike. Real `pulumi`, a file backend
//! two working copies share.

use crate::support::{copy_tree, real_pulumi_dir, stash_local, Workspace};

/// A working copy whose `pulumi` is only on the environment file's PATH, not the runner's own.
fn working_copy(backend: &std::path::Path) -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    workspace.file("providers/local.toml", std::fs::read(stash_local().join("providers/local.toml")).unwrap());
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    let system_path = "/usr/local/bin:/usr/bin:/bin";
    let run_path = format!("{}:{system_path}", real_pulumi_dir().display());
    workspace.env_file(&format!("{example}PULUMI_BACKEND_URL=file://{}\nPATH={run_path}\n", backend.display()));
    let home = workspace.path("home");
    workspace.set_env("PATH", system_path).set_env("HOME", home.display().to_string());
    workspace
}

#[test]
fn ext_status_and_resume_find_the_pulumi_runs_use() {
    let backend = tempfile::tempdir().unwrap();
    let first = working_copy(backend.path());
    let second = working_copy(backend.path());
    first.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]).expect_code(0);
    let file = "config/pulumi/Pulumi.dev.yaml";
    second.file(file, std::fs::read(first.path(file)).unwrap());

    // The second copy has no record: what it knows comes from the backend, through that pulumi.
    let status = second.run(&["status", "--provider", "local", "--stack", "dev"]);
    status.expect_code(0);
    let text = status.stdout();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines.iter().all(|line| line.contains("succeeded") && line.ends_with("(backend)")), "{text}");
    let resume = second.run(&["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--resume"]);
    resume.expect_code(0).expect_stderr_contains("resuming the stack history in the backend: 0 of 6");
}
