//! `kill -9` of the runner at many moments of `up` and of `destroy` (the shipped `local`
//! provider, the real `pulumi`, a file backend): each time the next plain run of the same
//! operation completes with exit 0 and leaves no Pulumi lock. Only the runner is killed: its
//! `pulumi` children live on for a moment as orphans (or zombies), as after a real crash.
//!
//! `RUNNER_KILL_SWEEP_POINTS` sets how many timed kill points share the first 5 s (8 by
//! default, alternating `up` and `destroy`); two more kills land mid-run, once a project ended.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, Workspace};

const SWEPT: Duration = Duration::from_secs(5);
const DEFAULT_POINTS: u32 = 8;

fn local_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    std::fs::copy(stash_local().join("providers/local.toml"), workspace.path("providers/local.toml")).unwrap();
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&example);
    let home = workspace.path("home");
    workspace.set_env("PATH", path_with(&real_pulumi_dir())).set_env("HOME", home.display().to_string());
    workspace
}

fn arguments(operation: &str) -> Vec<&str> {
    let mut args = vec![operation, "--provider", "local", "--stack", "dev", "--non-interactive"];
    if operation == "destroy" {
        args.push("--yes");
    }
    args
}

/// Every file under `dir`, with its metadata.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, std::fs::Metadata)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).map(|entries| entries.flatten().collect::<Vec<_>>()).unwrap_or_default() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(meta) = entry.metadata() {
                found.push((path, meta));
            }
        }
    }
    found
}

fn lock_files(dir: &Path) -> Vec<String> {
    files_under(dir)
        .into_iter()
        .filter(|(path, _)| path.extension().is_some_and(|ext| ext == "json"))
        .map(|(path, _)| path.display().to_string())
        .collect()
}

/// Every file of the backend with its size and age: what a failure needs to be understood
/// (an empty checkpoint, a temp file left by a killed `pulumi`).
fn backend_files(dir: &Path) -> String {
    let mut lines: Vec<String> = files_under(dir)
        .into_iter()
        .map(|(path, meta)| {
            let age = meta.modified().ok().and_then(|at| at.elapsed().ok()).unwrap_or_default();
            format!("  {} {} bytes, {}ms old", path.display(), meta.len(), age.as_millis())
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// True once the newest run record says a project of the running run has ended.
fn a_project_ended(workspace: &Workspace, runs_before: usize) -> bool {
    let dir = workspace.path(".runner/history");
    let mut records: Vec<_> =
        std::fs::read_dir(dir).map(|entries| entries.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    if records.len() <= runs_before {
        return false;
    }
    records.sort();
    let Ok(record) = std::fs::read(records.last().unwrap()) else { return false };
    let Ok(record) = serde_json::from_slice::<serde_json::Value>(&record) else { return false };
    record["projects"].as_array().is_some_and(|projects| projects.iter().any(|p| p["result"] == "succeeded"))
}

enum Moment {
    After(Duration),
    MidRun,
}

#[test]
fn ext_kill_9_at_any_moment_of_up_or_destroy_is_recovered_by_the_next_plain_run() {
    let workspace = local_workspace();
    let points = std::env::var("RUNNER_KILL_SWEEP_POINTS")
        .ok()
        .and_then(|text| text.parse::<u32>().ok())
        .filter(|points| *points > 0)
        .unwrap_or(DEFAULT_POINTS);
    // Point 0 goes last, so the first kill (of an `up` on stacks that do not exist yet) lands
    // in the middle of `pulumi stack init`.
    let mut moments: Vec<Moment> = (1..points).chain([0]).map(|point| Moment::After(SWEPT * point / points)).collect();
    moments.extend([Moment::MidRun, Moment::MidRun]);
    let backend_locks = workspace.path(".runner/backend/.pulumi/locks");
    for (index, moment) in moments.iter().enumerate() {
        // Alternate, so every `destroy` is killed with stacks deployed and every `up` with them gone.
        let operation = if index % 2 == 0 { "up" } else { "destroy" };
        let runs_before = std::fs::read_dir(workspace.path(".runner/history")).map(|e| e.count()).unwrap_or(0);
        let mut runner = workspace.spawn_quiet(&arguments(operation));
        let started = Instant::now();
        let when = match moment {
            Moment::After(delay) => {
                std::thread::sleep(*delay);
                format!("{}ms", delay.as_millis())
            }
            Moment::MidRun => {
                while !a_project_ended(&workspace, runs_before) && started.elapsed() < Duration::from_secs(120) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                format!("mid-run ({}ms)", started.elapsed().as_millis())
            }
        };
        // SIGKILL to the runner alone: its `pulumi` children are left to fend for themselves.
        let _ = runner.kill();
        runner.wait().unwrap();

        let next = workspace.run(&arguments(operation));
        assert_eq!(
            next.code(),
            0,
            "`{operation}` after kill -9 at {when}: the next plain run failed\n{}\nbackend files:\n{}",
            next.stderr(),
            backend_files(&workspace.path(".runner/backend/.pulumi"))
        );
        let left = lock_files(&backend_locks);
        assert!(left.is_empty(), "`{operation}` after kill -9 at {when} left locks: {left:?}\n{}", next.stderr());
    }
}
