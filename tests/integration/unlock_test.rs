//! A runner killed with `kill -9` leaves Pulumi's lock: the next run removes it itself (its
//! holder is provably gone) and says so; `runner unlock` refuses a live holder unless `--force`.

use std::time::{Duration, Instant};

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::kill;
use crate::support::Workspace;

fn lock_files(workspace: &Workspace) -> Vec<String> {
    workspace
        .listing()
        .into_iter()
        .filter(|file| file.starts_with(".state/.pulumi/locks/") && file.ends_with(".json"))
        .collect()
}

#[test]
fn ext_a_lock_left_by_a_killed_runner_is_removed_by_the_next_run() {
    let workspace = Workspace::with_real_pulumi();
    workspace.provider("slow", "[[project]]\npath = \"slow\"\nphase = \"infrastructure\"\n").file(
        "projects/slow/Pulumi.yaml",
        "name: slow\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n",
    );
    crate::support::make_fifo(&workspace.path("projects/slow/fifo"));

    let mut runner = workspace.spawn_quiet(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]);
    let (_, lock) = update_lock(&workspace);
    let pulumi_pid = lock["pid"].as_i64().unwrap() as i32;
    // The runner and its `pulumi` (a process group of its own) die without cleaning up.
    {
        kill(runner.id() as i32, 9);
        kill(-pulumi_pid, 9);
    }
    runner.wait().unwrap();
    let _ = std::fs::OpenOptions::new().write(true).custom_flags(0o4000).open(workspace.path("projects/slow/fifo"));
    while std::path::Path::new(&format!("/proc/{pulumi_pid}")).exists() {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!lock_files(&workspace).is_empty(), "the killed pulumi must have left its lock");

    workspace.file("projects/slow/Pulumi.yaml", "name: slow\nruntime: yaml\noutputs:\n  value: done\n");
    // The next plain run removes the lock itself: its holder is provably gone.
    let recovered = workspace.run(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]);
    recovered.expect_code(0).expect_stderr_contains(&format!(
        "removed the lock of `organization/slow/dev` left by `pulumi` pid {pulumi_pid} of `"
    ));
    assert!(lock_files(&workspace).is_empty(), "{:?}", lock_files(&workspace));
    let record = newest_record(&workspace);
    let recovered_locks = record["recovered_locks"].as_array().expect("the record names the removed lock");
    assert!(recovered_locks[0].as_str().unwrap().contains(&format!("pid {pulumi_pid}")), "{record}");
}

/// The lock of the `pulumi up` blocked on the fifo, and its content. Not just any lock: the
/// `stack init` before it takes one too, for a moment, which a loaded machine lets a test see.
fn update_lock(workspace: &Workspace) -> (std::path::PathBuf, serde_json::Value) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        for file in lock_files(workspace) {
            let file = workspace.path(&file);
            let Ok(bytes) = std::fs::read(&file) else { continue };
            let Ok(lock) = serde_json::from_slice::<serde_json::Value>(&bytes) else { continue };
            let cmdline = std::fs::read(format!("/proc/{}/cmdline", lock["pid"])).unwrap_or_default();
            if cmdline.split(|byte| *byte == 0).any(|arg| arg == b"up") {
                return (file, lock);
            }
        }
        assert!(Instant::now() < deadline, "pulumi up never took its lock");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn newest_record_file(workspace: &Workspace) -> std::path::PathBuf {
    let dir = workspace.path(".runner/history");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|entry| entry.path()).collect();
    names.sort();
    names.pop().unwrap()
}

fn newest_record(workspace: &Workspace) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(newest_record_file(workspace)).unwrap()).unwrap()
}

fn this_host() -> String {
    String::from_utf8(std::process::Command::new("hostname").output().unwrap().stdout).unwrap().trim().to_string()
}

/// A lock as the real CLI writes it, stamped now: a live holder wrote it after it started.
fn lock_json(pid: u32, host: &str) -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now());
    format!(r#"{{"pid":{pid},"username":"root","hostname":"{host}","timestamp":"{now}"}}"#)
}

/// A prerequisite the plan does not list is still an operation of the run: the `up` preflight
/// removes its dead lock instead of retrying Pulumi's lock until it gives up.
#[test]
fn ext_a_prerequisites_dead_lock_is_removed_by_the_run_that_needs_it() {
    let workspace = Workspace::with_real_pulumi();
    workspace
        .provider(
            "pre",
            "[[project]]\npath = \"creds\"\nphase = \"infrastructure\"\nonly_as_prerequisite = true\n\n[[project]]\npath = \"app\"\nphase = \"infrastructure\"\nprerequisites = [{ project = \"creds\", succeeded_within = \"1s\" }]\n",
        )
        .file("projects/creds/Pulumi.yaml", "name: creds\nruntime: yaml\noutputs:\n  value: fresh\n")
        .file("projects/app/Pulumi.yaml", "name: app\nruntime: yaml\noutputs:\n  value: app\n");
    let locks = workspace.path(".state/.pulumi/locks/organization/creds/dev");
    std::fs::create_dir_all(&locks).unwrap();
    std::fs::write(locks.join("dead.json"), lock_json(999_999_999, &this_host())).unwrap();
    let up = workspace.run(&["up", "--provider", "pre", "--stack", "dev", "--non-interactive"]);
    up.expect_code(0)
        .expect_stderr_contains("removed the lock of `organization/creds/dev` left by `pulumi` pid 999999999");
    assert!(lock_files(&workspace).is_empty(), "{:?}", lock_files(&workspace));
}

/// A lock whose `pulumi` still runs is never removed without `--force`, which says who held it.
#[test]
fn unlock_refuses_a_living_holder_and_force_names_it() {
    let workspace = Workspace::new();
    workspace.provider("one", "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n").project("net");
    let locks = workspace.path(".runner/backend/.pulumi/locks/organization/net/dev");
    std::fs::create_dir_all(&locks).unwrap();
    let host = this_host();
    std::fs::write(locks.join("held.json"), lock_json(std::process::id(), &host)).unwrap();
    // The holder is this test binary, whose command line is the test run's.
    let redactions = Redactions::of(&workspace).with(r"\(`[^`]*/integration-[^`]*`\)", "(`[THIS TEST]`)");
    runner_snapshot!("refused", redactions, workspace.std_command(&["unlock", "--provider", "one", "--stack", "dev"]));
    assert!(locks.join("held.json").exists());
    let force = ["unlock", "--provider", "one", "--stack", "dev", "--force"];
    let forced = runner_snapshot!("forced", redactions, workspace.std_command(&force));
    // The holder is this test: the snapshot's `pid [PID]` is its pid.
    let holder = format!("held by `pulumi` pid {} of `root@{host}`", std::process::id());
    assert!(String::from_utf8_lossy(&forced.stdout).contains(&holder), "{forced:?}");
    assert!(!locks.join("held.json").exists());
}

/// A `pulumi` killed under a runner that then ended by itself leaves its lock. An ended run's
/// record proves nothing of a lock: named by another host (a container sharing the checkout) the
/// lock stays, whatever the record says, until `--force`; named by this host, its pid is dead
/// and it goes without `--force`.
#[test]
fn ext_a_run_record_alone_never_proves_a_lock_left_behind() {
    let workspace = Workspace::with_real_pulumi();
    workspace.provider("slow", "[[project]]\npath = \"slow\"\nphase = \"infrastructure\"\n").file(
        "projects/slow/Pulumi.yaml",
        "name: slow\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n",
    );
    crate::support::make_fifo(&workspace.path("projects/slow/fifo"));
    let runner = workspace.spawn_quiet(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]);
    let (lock_file, lock) = update_lock(&workspace);
    let pulumi_pid = lock["pid"].as_i64().unwrap() as i32;
    // Only `pulumi` dies: the runner sees it end, records it and ends by itself.
    kill(-pulumi_pid, 9);
    let _ = std::fs::OpenOptions::new().write(true).custom_flags(0o4000).open(workspace.path("projects/slow/fifo"));
    assert_eq!(runner.wait_with_output().unwrap().status.code(), Some(1));
    let record = newest_record(&workspace);
    assert_eq!(record["state"], "finished");
    let recorded: Vec<i64> =
        record["pulumi_processes"].as_array().unwrap().iter().map(|p| p["pid"].as_i64().unwrap()).collect();
    assert!(recorded.contains(&(pulumi_pid as i64)), "{record}");
    assert!(lock_files(&workspace).len() == 1, "the killed pulumi must have left its lock");

    // As if that run had been in a container with a hostname of its own, sharing the checkout.
    let record_file = newest_record_file(&workspace);
    let mut moved_record = record.clone();
    moved_record["host"] = "devcontainer-7".into();
    std::fs::write(&record_file, moved_record.to_string()).unwrap();
    let mut moved = lock.clone();
    moved["hostname"] = "devcontainer-7".into();
    std::fs::write(&lock_file, moved.to_string()).unwrap();
    workspace
        .run(&["unlock", "--provider", "slow", "--stack", "dev"])
        .expect_code(1)
        .expect_stderr_contains(&format!("pid {pulumi_pid} of `root@devcontainer-7`"));
    assert!(lock_file.exists(), "a record is no proof that another host's process is gone");

    std::fs::write(&lock_file, lock.to_string()).unwrap();
    workspace
        .run(&["unlock", "--provider", "slow", "--stack", "dev"])
        .expect_code(0)
        .expect_stdout_contains(&format!("left by `pulumi` pid {pulumi_pid} of `"));
    assert!(lock_files(&workspace).is_empty(), "{:?}", lock_files(&workspace));
}

use std::os::unix::fs::OpenOptionsExt;
