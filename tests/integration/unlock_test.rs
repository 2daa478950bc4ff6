//! A runner killed with `kill -9` leaves Pulumi's lock: the next run names it before starting
//! anything, and the `runner unlock` it prints works verbatim.

use std::time::{Duration, Instant};

use crate::support::Workspace;

fn lock_files(workspace: &Workspace) -> Vec<String> {
    workspace
        .listing()
        .into_iter()
        .filter(|file| file.starts_with(".state/.pulumi/locks/") && file.ends_with(".json"))
        .collect()
}

#[test]
fn a_lock_left_by_a_killed_runner_is_reported_first_and_unlock_runs_as_printed() {
    let workspace = Workspace::with_real_pulumi();
    workspace.provider("slow", "[[project]]\npath = \"slow\"\nphase = \"infrastructure\"\n").file(
        "projects/slow/Pulumi.yaml",
        "name: slow\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n",
    );
    let fifo = std::ffi::CString::new(workspace.path("projects/slow/fifo").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { mkfifo(fifo.as_ptr(), 0o600) }, 0);

    let mut runner = workspace
        .std_command(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while lock_files(&workspace).is_empty() {
        assert!(Instant::now() < deadline, "pulumi never took its lock");
        std::thread::sleep(Duration::from_millis(100));
    }
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(workspace.path(&lock_files(&workspace)[0])).unwrap()).unwrap();
    let pulumi_pid = lock["pid"].as_i64().unwrap() as i32;
    // The runner and its `pulumi` (a process group of its own) die without cleaning up.
    unsafe {
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
    let refused = workspace.run(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]);
    refused
        .expect_code(2)
        .expect_stderr_contains(&format!("is locked by `pulumi` pid {pulumi_pid} that is gone from this host"));
    let stderr = refused.stderr();
    let hint = stderr.split('`').find(|part| part.starts_with("runner unlock")).expect("an unlock hint").to_string();
    let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
    let unlocked = workspace.run(&args);
    unlocked.expect_code(0);
    assert!(unlocked.stdout().contains(&format!("left by `pulumi` pid {pulumi_pid}")), "{}", unlocked.stdout());
    assert!(lock_files(&workspace).is_empty(), "{:?}", lock_files(&workspace));
    workspace.run(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]).expect_code(0);
}

/// A lock whose `pulumi` still runs is never removed.
#[test]
fn unlock_leaves_a_living_holders_lock_alone() {
    let workspace = Workspace::new();
    workspace.provider("one", "[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n").project("net");
    let locks = workspace.path(".runner/backend/.pulumi/locks/organization/net/dev");
    std::fs::create_dir_all(&locks).unwrap();
    let host = String::from_utf8(std::process::Command::new("hostname").output().unwrap().stdout).unwrap();
    std::fs::write(
        locks.join("held.json"),
        format!(
            r#"{{"pid":{},"username":"root","hostname":"{}","timestamp":"2026-11-22T22:05:19Z"}}"#,
            std::process::id(),
            host.trim()
        ),
    )
    .unwrap();
    let output = workspace.run(&["unlock", "--provider", "one", "--stack", "dev"]);
    output.expect_code(0).expect_stderr_contains("still runs");
    assert!(locks.join("held.json").exists());
}

use std::os::unix::fs::OpenOptionsExt;

extern "C" {
    fn kill(pid: i32, signal: i32) -> i32;
    fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}
