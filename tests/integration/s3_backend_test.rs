//! The `local` provider on a real S3-compatible backend (versitygw on loopback), from one and
//! from two working copies of the repository, against the real `pulumi`.

use std::path::Path;

use serde_json::Value;

use crate::object_store::{ObjectStore, ACCESS_KEY, BUCKET, SECRET_KEY};
use crate::support::{copy_tree, path_with, real_pulumi_dir, stash_local, RunOutput, Workspace};

/// A working copy of the repository (the `local` provider) whose backend is the store.
fn working_copy(url: &str, provider_toml: Option<&str>) -> Workspace {
    let mut workspace = Workspace::new();
    copy_tree(&stash_local().join("projects/local"), &workspace.path("projects/local"));
    match provider_toml {
        Some(toml) => workspace.provider("local", toml),
        None => {
            workspace.file("providers/local.toml", std::fs::read(stash_local().join("providers/local.toml")).unwrap())
        }
    };
    let example = std::fs::read_to_string(stash_local().join("config/pulumi/environment.example")).unwrap();
    workspace.env_file(&format!("{example}PULUMI_BACKEND_URL={url}\n"));
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("HOME", home.display().to_string())
        .set_env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .set_env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    workspace
}

/// The second machine shares the stack file (it holds the encryption salt), as a repository would.
fn share_stack_file(from: &Workspace, to: &Workspace) {
    let file = "config/pulumi/Pulumi.dev.yaml";
    to.file(file, std::fs::read(from.path(file)).unwrap());
}

fn report(workspace: &Workspace, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(workspace.path(name)).unwrap()).unwrap()
}

#[track_caller]
fn run_ok(workspace: &Workspace, args: &[&str]) -> RunOutput {
    let output = workspace.run(args);
    output.expect_code(0);
    output
}

fn stack_files(store: &ObjectStore) -> Vec<String> {
    let dir = store.root.join(BUCKET).join(".pulumi/stacks");
    let mut found = Vec::new();
    for project in std::fs::read_dir(&dir).map(|e| e.flatten().collect::<Vec<_>>()).unwrap_or_default() {
        for stack in std::fs::read_dir(project.path()).unwrap().flatten() {
            let name = stack.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") || name.ends_with(".json.gz") {
                found.push(format!("{}/{name}", project.file_name().to_string_lossy()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn ext_local_provider_end_to_end_on_an_s3_backend() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let copy = working_copy(&store.url(BUCKET), None);

    let doctor = run_ok(&copy, &["doctor", "--provider", "local"]);
    for line in ["backend reachable", "backend credentials", "backend bucket"] {
        assert!(
            doctor.stdout().lines().any(|l| l.starts_with("ok") && l.contains(line)),
            "{line}:\n{}",
            doctor.stdout()
        );
    }

    run_ok(&copy, &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=up.json"]);
    let up = report(&copy, "up.json");
    for entry in up["projects"].as_array().unwrap() {
        assert_eq!(entry["result"], "succeeded", "{entry}");
        assert!(entry["changes"]["created"].as_u64().unwrap() > 0, "{entry}");
    }
    assert_eq!(stack_files(&store).len(), 6, "{:?}", stack_files(&store));
    assert!(!copy.path(".runner/backend").exists(), "state went to the local file backend");

    run_ok(&copy, &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=reup.json"]);
    for entry in report(&copy, "reup.json")["projects"].as_array().unwrap() {
        let changes = &entry["changes"];
        assert_eq!(
            (changes["created"].as_u64(), changes["updated"].as_u64(), changes["deleted"].as_u64()),
            (Some(0), Some(0), Some(0)),
            "a re-up with no change changed {entry}"
        );
    }
    run_ok(&copy, &["refresh", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    run_ok(
        &copy,
        &[
            "destroy",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--non-interactive",
            "--yes",
            "--report",
            "json=destroy.json",
        ],
    );
    for entry in report(&copy, "destroy.json")["projects"].as_array().unwrap() {
        assert_eq!(entry["result"], "succeeded", "{entry}");
    }
}

#[test]
fn ext_doctor_names_a_missing_bucket_and_rejected_credentials() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));

    let missing = working_copy(&store.url("no-such-bucket"), None);
    let out = missing.run(&["doctor", "--provider", "local"]);
    out.expect_code(2);
    assert!(
        out.stdout().lines().any(|l| l.starts_with("problem") && l.contains("bucket `no-such-bucket` does not exist")),
        "{}\n{}",
        out.stdout(),
        out.stderr()
    );

    let mut wrong = working_copy(&store.url(BUCKET), None);
    wrong.set_env("AWS_SECRET_ACCESS_KEY", "not-the-secret");
    let out = wrong.run(&["doctor", "--provider", "local"]);
    out.expect_code(2);
    assert!(
        out.stdout()
            .lines()
            .any(|l| l.starts_with("problem") && l.contains("backend credentials") && l.contains("rejected")),
        "{}",
        out.stdout()
    );
    assert!(!out.stdout().contains("not-the-secret"));

    drop(store);
    let out = wrong.run(&["doctor", "--provider", "local"]);
    out.expect_code(2);
    assert!(out.stdout().contains("start the object store"), "{}", out.stdout());
}

#[test]
fn ext_two_working_copies_share_the_backend() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let url = store.url(BUCKET);
    let first = working_copy(&url, None);
    let second = working_copy(&url, None);

    run_ok(&first, &["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    share_stack_file(&first, &second);

    // The second copy has no run record, yet sees the first one's stacks through the backend.
    let status = run_ok(&second, &["status", "--provider", "local", "--stack", "dev"]);
    let text = status.stdout();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines.len(), 6, "{}", status.stdout());
    for line in &lines {
        assert!(line.contains("up") && line.contains("succeeded") && line.ends_with("(backend)"), "{line}");
    }
    // Nothing to resume: every stack's last update succeeded, on the other machine.
    let resume = run_ok(&second, &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--resume"]);
    assert!(resume.stderr().contains("resuming the stack history in the backend: 0 of 6"), "{}", resume.stderr());

    // The second copy refreshes and re-deploys the first one's stacks without recreating anything.
    run_ok(&second, &["refresh", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    run_ok(
        &second,
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=second.json"],
    );
    for entry in report(&second, "second.json")["projects"].as_array().unwrap() {
        assert_eq!(entry["changes"]["created"], 0, "{entry}");
    }

    // Both copies `up` the same stacks at once: Pulumi's lock in the backend serialises them;
    // the loser is retried (held locks are transient) or fails naming the lock. Nothing is lost.
    let mut first_child = first.std_command(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    let mut second_child = second.std_command(&["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    let (a, b) = (first_child.output_async(), second_child.output_async());
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    for out in [&a, &b] {
        let code = out.status.code().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(code == 0 || (code == 1 && stderr.contains("locked")), "exit {code}:\n{stderr}");
    }
    assert_eq!(stack_files(&store).len(), 6);
    run_ok(
        &first,
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=after.json"],
    );
    for entry in report(&first, "after.json")["projects"].as_array().unwrap() {
        assert_eq!(entry["changes"]["created"], 0, "{entry}");
        assert_eq!(entry["changes"]["deleted"], 0, "{entry}");
    }
}

#[test]
fn ext_a_lock_held_by_another_machine_stops_the_run_by_name() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let copy = working_copy(&store.url(BUCKET), None);
    run_ok(
        &copy,
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--only", "infrastructure/network"],
    );

    // What Pulumi writes while another machine's update runs: a lock object next to the stack.
    let locks = store.root.join(BUCKET).join(".pulumi/locks/organization/local-network/dev");
    std::fs::create_dir_all(&locks).unwrap();
    let lock = locks.join("6f0a4c3e-0b7e-4d55-9b1e-4e7a3c1d2f00.json");
    std::fs::write(
        &lock,
        r#"{"pid":4242,"username":"ci","hostname":"ci-runner-7","timestamp":"2026-11-22T22:00:00Z"}"#,
    )
    .unwrap();

    let held = copy.run(&[
        "up",
        "--provider",
        "local",
        "--stack",
        "dev",
        "--non-interactive",
        "--only",
        "infrastructure/network",
        "--report",
        "json=held.json",
    ]);
    // Another host's holder cannot be seen from here: the run stops before anything starts,
    // naming it, instead of retrying Pulumi's lock until it gives up.
    held.expect_code(2)
        .expect_stderr_contains("`pulumi` pid 4242 of `ci@ci-runner-7` since 2026-11-22T22:00:00Z")
        .expect_stderr_contains("runner unlock --provider local --stack dev --force");
    assert!(!copy.path("held.json").exists(), "nothing ran");

    // Once the other machine is done, the same command goes through, on the same state.
    std::fs::remove_file(&lock).unwrap();
    run_ok(
        &copy,
        &[
            "up",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--non-interactive",
            "--only",
            "infrastructure/network",
            "--report",
            "json=free.json",
        ],
    );
    assert_eq!(report(&copy, "free.json")["projects"][0]["changes"]["created"], 0);
}

const PREREQUISITE_PROVIDER: &str = r#"
description = "a registry whose image must follow a fresh network"
projects_root = "projects/local"
infra_type = "local"

[[config]]
key = "local:cidr"
prompt = "cidr"
default = "10.42.0.0/16"

[[config]]
key = "local:registry_host"
prompt = "registry"
default = "127.0.0.1:5000"

[[project]]
path = "infrastructure/network"
phase = "infrastructure"
only_as_prerequisite = true

[[project]]
path = "infrastructure/registry"
phase = "infrastructure"
prerequisites = [{ project = "infrastructure/network", succeeded_within = "1h" }]
"#;

#[test]
fn ext_a_prerequisite_run_by_another_copy_within_its_window_is_honoured() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let url = store.url(BUCKET);
    let first = working_copy(&url, Some(PREREQUISITE_PROVIDER));
    let second = working_copy(&url, Some(PREREQUISITE_PROVIDER));

    // The first machine has never run the network: the prerequisite runs first.
    let out = run_ok(&first, &["up", "--provider", "local", "--stack", "dev", "--non-interactive"]);
    out.expect_stderr_contains("prerequisite `infrastructure/network` has not succeeded within 1h: running it first");
    share_stack_file(&first, &second);

    // The second machine has no record of it, but the backend's history does.
    let out = run_ok(
        &second,
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--report", "json=r.json"],
    );
    out.expect_stderr_contains("(stack history in the backend)");
    let projects: Vec<String> = report(&second, "r.json")["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["project"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(projects, ["infrastructure/registry"], "the network ran again");
    assert!(!Path::new(&second.path(".runner/backend")).exists());
}

/// Runs a command on a thread, for two copies racing each other.
trait OutputAsync {
    fn output_async(&mut self) -> std::thread::JoinHandle<std::process::Output>;
}

impl OutputAsync for std::process::Command {
    fn output_async(&mut self) -> std::thread::JoinHandle<std::process::Output> {
        let child = self.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        std::thread::spawn(move || child.wait_with_output().unwrap())
    }
}

#[test]
fn ext_resume_on_another_copy_runs_what_the_backend_has_not_seen_succeed() {
    let scratch = tempfile::tempdir().unwrap();
    let store = ObjectStore::start(&scratch.path().join("store"));
    let url = store.url(BUCKET);
    let first = working_copy(&url, None);
    let second = working_copy(&url, None);
    run_ok(
        &first,
        &["up", "--provider", "local", "--stack", "dev", "--non-interactive", "--only", "infrastructure/network"],
    );
    share_stack_file(&first, &second);

    let out = run_ok(
        &second,
        &[
            "up",
            "--provider",
            "local",
            "--stack",
            "dev",
            "--non-interactive",
            "--resume",
            "--report",
            "json=resume.json",
        ],
    );
    out.expect_stderr_contains("resuming the stack history in the backend: 5 of 6 projects left to run");
    let ran: Vec<String> = report(&second, "resume.json")["projects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["result"] == "succeeded")
        .map(|entry| entry["project"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ran.len(), 5, "{ran:?}");
    assert!(!ran.contains(&"infrastructure/network".to_string()), "{ran:?}");
}
