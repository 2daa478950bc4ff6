//! Every child the runner starts stops when the run is stopped: the second Ctrl-C (or the SIGTERM
//! after a Ctrl-C) kills a running `on_success` command or `ready` command gate with its whole
//! process group at once, instead of waiting out the hook's timeout or the gate's attempt. A
//! hook's outputs file (plain secrets) goes with it, and what a runner killed by -9 left behind
//! goes at the next run.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::kill;
use crate::support::Workspace;

/// A child that ignores SIGINT and SIGTERM, as a busy `kubectl` may: only a kill stops it. It
/// notes its pids and its outputs file, and returns at once when `fast` exists.
fn stubborn(dir: &Path) -> String {
    let at = dir.display();
    format!(
        "test -e {at}/fast && exit 0; echo \\\"$RUNNER_OUTPUTS_FILE\\\" > {at}/outputs.path; \
         trap '' INT TERM; sleep 300 & echo $$ $! > {at}/child.pids.tmp; mv {at}/child.pids.tmp {at}/child.pids; wait"
    )
}

fn provider(kind: &str, dir: &Path) -> String {
    let argv = format!("[\"sh\", \"-c\", \"{}\"]", stubborn(dir));
    let step = match kind {
        "hook" => format!("on_success = [{{ command = {{ argv = {argv}, timeout = \"5m\" }} }}]"),
        _ => format!("ready = [{{ command = {argv}, timeout = \"5m\", interval = \"1s\" }}]"),
    };
    format!("[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n{step}\n")
}

fn workspace(kind: &str) -> Workspace {
    let mut workspace = Workspace::with_fake_pulumi("", &["a"], "{}");
    workspace.provider("demo", &provider(kind, workspace.root()));
    std::fs::create_dir_all(workspace.path("tmp")).unwrap();
    let tmp = workspace.path("tmp").display().to_string();
    workspace.set_env("TMPDIR", tmp);
    workspace
}

fn child_pids(workspace: &Workspace) -> Vec<i32> {
    let file = workspace.path("child.pids");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            return text.split_whitespace().map(|pid| pid.parse().unwrap()).collect();
        }
        assert!(Instant::now() < deadline, "the stubborn child never started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Gone, or a zombie nobody reaped yet.
fn gone(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| stat.contains(") Z "))
}

/// A child's stderr, read as it comes, so a test can wait for a line instead of pausing.
struct StderrWatch(std::sync::Arc<std::sync::Mutex<String>>, std::thread::JoinHandle<()>);

impl StderrWatch {
    fn of(child: &mut std::process::Child) -> Self {
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let shared = std::sync::Arc::clone(&text);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(read) = std::io::Read::read(&mut stderr, &mut chunk) {
                if read == 0 {
                    break;
                }
                shared.lock().unwrap().push_str(&String::from_utf8_lossy(&chunk[..read]));
            }
        });
        Self(text, reader)
    }

    fn wait_for(&self, wanted: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.0.lock().unwrap().contains(wanted) {
            assert!(Instant::now() < deadline, "stderr never said {wanted:?}:\n{}", self.0.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything, once the child has exited.
    fn all(self) -> String {
        let _ = self.1.join();
        let text = self.0.lock().unwrap().clone();
        text
    }
}

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;

#[test]
fn a_second_signal_kills_a_running_hook_or_gate_at_once() {
    for kind in ["hook", "gate"] {
        for second in [SIGINT, SIGTERM] {
            let workspace = workspace(kind);
            let mut runner = workspace
                .std_command(&["up", "--provider", "demo", "--stack", "dev"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let pids = child_pids(&workspace);
            let stderr = StderrWatch::of(&mut runner);
            kill(runner.id() as i32, SIGINT);
            // Two signals sent before the runner took the first would be one for the kernel.
            stderr.wait_for("interrupted: cancelling");
            kill(runner.id() as i32, second);
            let signalled = Instant::now();
            let deadline = signalled + Duration::from_secs(20);
            while runner.try_wait().unwrap().is_none() {
                if Instant::now() > deadline {
                    let _ = runner.kill();
                    pids.iter().for_each(|pid| {
                        kill(*pid, SIGKILL);
                    });
                    panic!("{kind}, second signal {second}: the run still waits 20 s after it");
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let status = runner.wait().unwrap();
            let stderr = stderr.all();
            assert_eq!(status.code(), Some(130), "{kind}, {second}: {stderr}");
            assert!(stderr.contains("killing running projects"), "{kind}, {second}: {stderr}");
            let left: Vec<i32> = pids.iter().copied().filter(|pid| !gone(*pid)).collect();
            left.iter().for_each(|pid| {
                kill(*pid, SIGKILL);
            });
            assert!(left.is_empty(), "{kind}, {second}: {left:?} of the {kind} outlived the run");
            if kind == "hook" {
                let outputs = std::fs::read_to_string(workspace.path("outputs.path")).unwrap();
                assert!(!Path::new(outputs.trim()).exists(), "the hook's outputs file outlived the kill");
            }
        }
    }
}

#[test]
fn the_next_run_removes_the_outputs_files_a_killed_runner_left() {
    let workspace = workspace("hook");
    let mut runner = workspace.spawn_quiet(&["up", "--provider", "demo", "--stack", "dev"]);
    let pids = child_pids(&workspace);
    kill(runner.id() as i32, SIGKILL);
    runner.wait().unwrap();
    pids.iter().for_each(|pid| {
        kill(*pid, SIGKILL);
    });
    let outputs = std::fs::read_to_string(workspace.path("outputs.path")).unwrap();
    let folder = Path::new(outputs.trim()).parent().unwrap().to_path_buf();
    assert!(folder.exists(), "kill -9 leaves the folder: the premise of this test");
    workspace.file("fast", "");
    workspace.run(&["up", "--provider", "demo", "--stack", "dev"]).expect_code(0);
    assert!(!folder.exists(), "{} outlived the next run", folder.display());
}

/// With the real `pulumi` (its outputs read for the hooks): a hook that exits 0 while the
/// background child it started still holds stderr (`kubectl port-forward &`) succeeds, and a
/// failing hook's quoted stderr shows nothing of a secret output across the 300-character cut.
#[test]
fn ext_a_hook_ends_at_its_exit_and_its_quoted_stderr_is_masked_before_the_cut() {
    let secret = "s3cr3t-0f-the-real-stack-0123456789";
    let mut workspace = Workspace::new();
    let (backend, home) = (workspace.path(".state"), workspace.path("home"));
    workspace
        .set_env("PATH", crate::support::path_with(&crate::support::real_pulumi_dir()))
        .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .set_env("HOME", home.display().to_string());
    let at = workspace.root().display().to_string();
    let background = format!("sleep 300 & echo $! > {at}/background.pid; exit 0");
    let leaky = "echo hook says hello; printf '%0290d%s and the rest\\\\n' 0 \\\"$RUNNER_OUTPUT_TOKEN\\\" >&2; exit 1";
    workspace
        .provider(
            "hooks",
            &format!(
                "[[project]]\npath = \"background\"\nphase = \"infrastructure\"\n\
                 on_success = [{{ command = {{ argv = [\"sh\", \"-c\", \"{background}\"], timeout = \"10s\" }} }}]\n\
                 [[project]]\npath = \"leaky\"\nphase = \"infrastructure\"\n\
                 on_success = [{{ command = {{ argv = [\"sh\", \"-c\", \"{leaky}\"] }} }}]\n"
            ),
        )
        .file("projects/background/Pulumi.yaml", "name: background\nruntime: yaml\noutputs:\n  plain: visible\n")
        .file(
            "projects/leaky/Pulumi.yaml",
            format!("name: leaky\nruntime: yaml\noutputs:\n  token:\n    fn::secret: {secret}\n"),
        );
    let output = workspace.run(&[
        "up",
        "--provider",
        "hooks",
        "--stack",
        "dev",
        "--non-interactive",
        "--report",
        "json=report.json",
    ]);
    if let Ok(pid) = std::fs::read_to_string(workspace.path("background.pid")).unwrap_or_default().trim().parse() {
        kill(pid, SIGKILL);
    }
    output.expect_code(1);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace.path("report.json")).unwrap()).unwrap();
    let result = |project: &str| {
        let entry = report["projects"].as_array().unwrap().iter().find(|entry| entry["project"] == project).unwrap();
        (entry["result"].as_str().unwrap().to_string(), entry.to_string())
    };
    assert_eq!(result("background").0, "succeeded", "{}\n{}", result("background").1, output.stderr());
    assert_eq!(result("leaky").0, "failed", "{}", result("leaky").1);
    let stderr = output.stderr();
    assert!(stderr.contains("failed with exit code 1: 0000"), "{stderr}");
    for place in [stderr, std::fs::read_to_string(workspace.path("report.json")).unwrap()] {
        assert!(!place.contains(&secret[..8]), "the secret's first characters leaked: {place}");
    }
    // What the hook printed is in the project's log, masked.
    let log = workspace.listing().into_iter().find(|file| file.ends_with("/leaky.log")).expect("leaky's log");
    let log = std::fs::read_to_string(workspace.path(&log)).unwrap();
    assert!(log.contains("hook says hello") && log.contains("0000[secret] and the rest"), "{log}");
    for file in workspace.listing().into_iter().filter(|file| file.starts_with(".runner/")) {
        let text = std::fs::read(workspace.path(&file)).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&text).contains(&secret[..8]), "{file} holds the secret's beginning");
    }
}

/// `pulumi stack output`, read for a hook, hangs: the run's Ctrl-C reaches it as it reaches the
/// operations, where it used to be waited on forever.
#[test]
fn a_pulumi_query_inside_a_run_hears_its_ctrl_c() {
    let script = r#"{"projects": {"a": {"hang": true, "hang_on": ["output"]}}}"#;
    let mut workspace = Workspace::with_fake_pulumi(
        "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\non_success = [{ command = { argv = [\"true\"] } }]\n",
        &["a"],
        script,
    );
    // Outputs come from the backend's state where the runner can read it: on a backend only
    // `pulumi` reads (Pulumi Cloud), the hook's outputs are a `pulumi stack output` query.
    workspace.set_env("PULUMI_BACKEND_URL", "https://api.pulumi.invalid");
    let mut runner = workspace
        .std_command(&["up", "--provider", "demo", "--stack", "dev"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    workspace.wait_for_fake_mark(None, "output", "working");
    kill(runner.id() as i32, SIGINT);
    let deadline = Instant::now() + Duration::from_secs(20);
    while runner.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = runner.kill();
            let pids = workspace.fake_invocations().into_iter().filter_map(|call| call["pid"].as_i64());
            pids.for_each(|pid| {
                kill(pid as i32, SIGKILL);
            });
            panic!("the run still waits for `pulumi stack output` 20 s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = runner.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The runner killed by -9 cannot stop its children itself: the kernel sends them SIGINT, as the
/// terminal's Ctrl-C would have, so `pulumi` cancels and releases its lock instead of running on
/// in a process group of its own.
#[test]
fn children_of_a_runner_killed_by_9_are_interrupted() {
    let workspace = Workspace::with_fake_pulumi(
        "[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n",
        &["a"],
        r#"{"projects": {"a": {"hang": true}}}"#,
    );
    let mut runner = workspace.spawn_quiet(&["up", "--provider", "demo", "--stack", "dev"]);
    let started =
        |op: &str| workspace.fake_invocations().into_iter().find(|call| call["op"] == op && call["event"] == "start");
    workspace.wait_for_fake_mark(Some("a"), "up", "working");
    kill(runner.id() as i32, SIGKILL);
    runner.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let ended = || workspace.fake_invocations().into_iter().find(|call| call["op"] == "up" && call["event"] == "end");
    while ended().is_none() {
        if Instant::now() > deadline {
            kill(started("up").unwrap()["pid"].as_i64().unwrap() as i32, SIGKILL);
            panic!("pulumi runs on after its runner was killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ended().unwrap()["exit"], 255, "cancelled as on Ctrl-C: {}", ended().unwrap());
}
