//! Against the real `pulumi` CLI and YAML language host on a local file backend.

use crate::support::kill;
use crate::support::{path_with, real_pulumi_dir, real_pulumi_in, Workspace};

fn real_workspace() -> Workspace {
    let mut workspace = Workspace::new();
    let backend = workspace.path(".state");
    let home = workspace.path("home");
    workspace
        .set_env("PATH", path_with(&real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string());
    workspace
}

/// The install proof: two YAML projects, the second reading the first through a StackReference.
#[test]
fn ext_stack_reference_carries_an_output_between_two_projects() {
    let workspace = real_workspace();
    workspace
        .provider(
            "pair",
            r#"
[[project]]
path = "first"
phase = "infrastructure"
[[project]]
path = "second"
phase = "infrastructure"
depends_on = ["first"]
"#,
        )
        .file("projects/first/Pulumi.yaml", "name: first\nruntime: yaml\noutputs:\n  greeting: hello from first\n")
        .file(
            "projects/second/Pulumi.yaml",
            "name: second\nruntime: yaml\nresources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/first/${pulumi.stack}\noutputs:\n  echoed: ${ref.outputs[\"greeting\"]}\n",
        );
    let output =
        workspace.command(&["up", "--provider", "pair", "--stack", "dev", "--non-interactive"]).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let stack_output = real_pulumi_in(&workspace, "second", &workspace.path(".state"))
        .args(["stack", "output", "echoed", "--stack", "organization/second/dev", "--non-interactive"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&stack_output.stdout).trim(),
        "hello from first",
        "{}",
        String::from_utf8_lossy(&stack_output.stderr)
    );
}

#[test]
fn ext_installed_pulumi_reports_the_pinned_version() {
    let script = std::fs::read_to_string(crate::support::repository().join("scripts/install-pulumi.sh")).unwrap();
    let pinned = script
        .lines()
        .find_map(|line| line.strip_prefix("PULUMI_VERSION=\"${RUNNER_PULUMI_VERSION:-"))
        .unwrap()
        .trim_end_matches("}\"");
    let output = std::process::Command::new(real_pulumi_dir().join("pulumi"))
        .arg("version")
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), pinned);
}

/// A YAML program that blocks reading a FIFO: an `up` that runs until someone writes to it.
fn slow_workspace() -> Workspace {
    let workspace = real_workspace();
    workspace.provider("slow", "[[project]]\npath = \"slow\"\nphase = \"infrastructure\"\n").file(
        "projects/slow/Pulumi.yaml",
        "name: slow\nruntime: yaml\nvariables:\n  blocked:\n    fn::readFile: ./fifo\noutputs:\n  value: ${blocked}\n",
    );
    crate::support::make_fifo(&workspace.path("projects/slow/fifo"));
    workspace
}

/// Opens the FIFO for writing without blocking, so a reader left behind ends.
fn release_fifo(workspace: &Workspace) {
    let _ = std::fs::OpenOptions::new().write(true).custom_flags(0o4000).open(workspace.path("projects/slow/fifo"));
}

fn wait_for_file(path: &std::path::Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !path.exists() {
        assert!(std::time::Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn lock_files(workspace: &Workspace) -> Vec<String> {
    workspace
        .listing()
        .into_iter()
        .filter(|file| file.starts_with(".state/.pulumi/locks/") && file.ends_with(".json"))
        .collect()
}

#[test]
fn ext_ctrl_c_during_up_leaves_no_lock_and_exits_130() {
    let workspace = slow_workspace();
    // Create the stack first so the interrupted operation is the `up` itself.
    let mut runner = workspace
        .std_command(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(&workspace.path(".state/.pulumi/stacks/slow/dev.json"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while lock_files(&workspace).is_empty() {
        assert!(std::time::Instant::now() < deadline, "pulumi never took its lock");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // While it holds the stack, a second runner is refused and names the holder.
    let second = workspace.run(&["up", "--provider", "slow", "--stack", "dev", "--non-interactive"]);
    second.expect_code(2).expect_stderr_contains(&format!("is in use by another runner: pid {}", runner.id()));

    kill(runner.id() as i32, 2);
    let status = runner.wait().unwrap();
    release_fifo(&workspace);
    let mut stderr = String::new();
    std::io::Read::read_to_string(runner.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(lock_files(&workspace).is_empty(), "pulumi left its lock: {:?}", lock_files(&workspace));
    assert!(stderr.contains("slow cancelled"), "{stderr}");
}

/// The terminal closes while the real `pulumi up` holds its stack: the runner cancels it as on
/// Ctrl-C, so pulumi releases its lock, the run is recorded as interrupted, and nothing pulumi
/// started (its language host) is left running.
#[test]
fn ext_a_closed_terminal_cancels_the_real_pulumi_cleanly() {
    let workspace = slow_workspace();
    let script = format!(
        "{} up --provider slow --stack dev --non-interactive; sleep 60",
        assert_cmd::cargo::cargo_bin("runner").display()
    );
    let terminal = crate::tmux_session::TmuxSession::start(&workspace, 100, 20, &script);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while lock_files(&workspace).is_empty() {
        assert!(std::time::Instant::now() < deadline, "pulumi never took its lock: {}", terminal.screen());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The runner itself, found before the terminal goes: it may still be exiting (and its
    // children with it) when the record already says interrupted.
    let runners = runner_processes(workspace.root());
    assert_eq!(runners.len(), 1, "one runner in the terminal: {runners:?}");
    terminal.close();
    let history = workspace.path(".runner/history");
    let state = || -> Option<String> {
        let entry = std::fs::read_dir(&history).ok()?.flatten().next()?;
        let run: serde_json::Value = serde_json::from_slice(&std::fs::read(entry.path()).ok()?).ok()?;
        run["state"].as_str().map(str::to_string)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while state().is_none_or(|state| state == "running") {
        assert!(std::time::Instant::now() < deadline, "the run was never recorded as ended");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    release_fifo(&workspace);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while runners.iter().any(|pid| running(*pid)) {
        assert!(std::time::Instant::now() < deadline, "the runner never exited: {runners:?}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(state().as_deref(), Some("interrupted"));
    assert!(lock_files(&workspace).is_empty(), "pulumi left its lock: {:?}", lock_files(&workspace));
    assert!(!workspace.path(".runner/locks/dev.lock").exists(), "the runner left its stack lock");
    let root = workspace.root().to_string_lossy().into_owned();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|process| std::fs::read_link(process.path().join("cwd")).ok())
        .map(|cwd| cwd.to_string_lossy().into_owned())
        .filter(|cwd| cwd.starts_with(&root))
        .collect();
    assert!(left.is_empty(), "processes still running in the workspace: {left:?}");
}

/// The pids of the runner binary running in `root`.
fn runner_processes(root: &std::path::Path) -> Vec<i32> {
    let binary = assert_cmd::cargo::cargo_bin("runner");
    let binary = binary.canonicalize().unwrap_or(binary);
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|process| {
            let pid = process.file_name().to_str()?.parse().ok()?;
            let cwd = std::fs::read_link(process.path().join("cwd")).ok()?;
            let exe = std::fs::read_link(process.path().join("exe")).ok()?;
            (cwd.starts_with(root) && exe == binary).then_some(pid)
        })
        .collect()
}

/// Neither gone nor a zombie waiting to be reaped.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z "))
}

use std::os::unix::fs::OpenOptionsExt;
