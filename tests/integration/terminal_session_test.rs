//! A person at a terminal: the destroy confirmation, Ctrl-C at a prompt and during a run, and
//! what the terminal looks like afterwards (cursor, echo, no stale progress line).

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::Workspace;

const PROVIDER: &str = "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n\n\
                        [[project]]\npath = \"kubernetes/applications/demo\"\nphase = \"kubernetes\"\ndepends_on = [\"network\"]\n";
const PROJECTS: &[&str] = &["network", "kubernetes/applications/demo"];

fn workspace(script: &str) -> Workspace {
    let workspace = Workspace::with_fake_pulumi(PROVIDER, PROJECTS, script);
    workspace.env_file("PULUMI_STACK=dev\n");
    workspace
}

/// Runs `runner ARGS` in a pseudo-terminal driven by `steps`; returns the transcript and exit code.
fn in_a_terminal(workspace: &Workspace, steps: serde_json::Value, args: &[&str]) -> (String, Option<i32>) {
    let output = workspace.in_a_terminal(&steps.to_string(), args).env("NO_COLOR", "1").output().unwrap();
    (String::from_utf8_lossy(&output.stdout).into_owned(), output.status.code())
}

/// For tmux: the same environment as the pseudo-terminal runs.
fn terminal_command(workspace: &Workspace, program: &str) -> Command {
    let probe = workspace.in_a_terminal("[]", &[]);
    let mut command = Command::new(program);
    command.current_dir(workspace.root()).env("NO_COLOR", "1");
    for (key, value) in probe.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// The cursor is visible at the end: every `hide` escape was followed by a `show`.
fn cursor_visible(transcript: &str) -> bool {
    match (transcript.rfind("\u{1b}[?25l"), transcript.rfind("\u{1b}[?25h")) {
        (Some(hidden), Some(shown)) => shown > hidden,
        (Some(_), None) => false,
        (None, _) => true,
    }
}

fn deploy(workspace: &Workspace) {
    workspace.run(&["up", "--provider", "demo", "--stack", "dev", "--non-interactive"]).expect_code(0);
}

#[test]
fn destroy_lists_the_projects_and_wants_the_stack_name_typed() {
    let workspace = workspace("{}");
    deploy(&workspace);
    let steps = json!([{"expect": "Type the stack name `dev` to destroy them", "send": "yes\r"}]);
    let (transcript, code) = in_a_terminal(&workspace, steps, &["destroy", "--provider", "demo", "--stack", "dev"]);
    assert_eq!(code, Some(0), "a no is not an error: {transcript}");
    assert!(
        transcript
            .contains("`destroy` deletes every resource of 2 projects of `demo` in stack `dev`, dependents first:"),
        "{transcript}"
    );
    let listed = transcript.find("  kubernetes/applications/demo").zip(transcript.find("  network\r"));
    assert!(listed.is_some_and(|(app, network)| app < network), "dependents are listed first: {transcript}");
    assert!(transcript.contains("nothing destroyed"), "{transcript}");
    let destroys = workspace.fake_invocations().iter().filter(|call| call["op"] == "destroy").count();
    assert_eq!(destroys, 0, "answering anything but the stack name destroys nothing");

    let steps = json!([{"expect": "Type the stack name", "send": "dev\r"}]);
    let (transcript, code) = in_a_terminal(&workspace, steps, &["destroy", "--provider", "demo", "--stack", "dev"]);
    assert_eq!(code, Some(0), "{transcript}");
    assert!(transcript.contains("destroy: 2 succeeded in"), "the footer ends the run: {transcript}");
}

#[test]
fn ctrl_c_at_the_destroy_prompt_restores_the_terminal() {
    let workspace = workspace("{}");
    deploy(&workspace);
    let steps = json!([{"expect": "Type the stack name", "send": "de\u{3}"}]);
    let (transcript, code) = in_a_terminal(&workspace, steps, &["destroy", "--provider", "demo", "--stack", "dev"]);
    assert_eq!(code, Some(130), "{transcript}");
    assert!(cursor_visible(&transcript), "the cursor stays hidden: {transcript:?}");
    assert!(transcript.contains("terminal after exit: echo=on icanon=on"), "{transcript}");
    assert!(workspace.fake_invocations().iter().all(|call| call["op"] != "destroy"), "nothing was destroyed");
}

#[test]
fn ctrl_c_during_a_run_restores_echo_and_the_cursor() {
    let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
    let steps = json!([{"expect": "network", "send": "\u{3}", "delay": 1.0}]);
    let (transcript, code) = in_a_terminal(&workspace, steps, &["up", "--provider", "demo", "--stack", "dev"]);
    assert_eq!(code, Some(130), "{transcript}");
    assert!(transcript.contains("interrupted: cancelling running projects"), "{transcript}");
    assert!(!transcript.contains("killed by signal"), "{transcript}");
    assert!(
        transcript.contains("next: `runner up --provider demo --stack dev --resume` runs the 2 projects left"),
        "{transcript}"
    );
    assert!(cursor_visible(&transcript), "{transcript:?}");
    assert!(transcript.contains("terminal after exit: echo=on icanon=on"), "{transcript}");
    assert!(!transcript.contains("^C"), "a Ctrl-C echoed into the live lines: {transcript:?}");
}

/// tmux keeps the screen a person would see: after Ctrl-C no spinner line is left above the
/// messages, and the shell gets its echo back.
#[test]
fn after_ctrl_c_the_screen_has_no_stale_progress_line() {
    if Command::new("tmux").arg("-V").output().is_err() {
        panic!("tmux is required for this test: apt-get install tmux");
    }
    let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
    let session = format!("runner-test-{}", std::process::id());
    let socket = workspace.path("tmux.sock");
    let tmux = |args: &[&str]| -> Output {
        let mut command = terminal_command(&workspace, "tmux");
        command.arg("-S").arg(&socket).args(args).output().unwrap()
    };
    let runner = assert_cmd::cargo::cargo_bin("runner");
    let script = format!(
        // `exit=` comes last: the test reads the screen once it appears, so everything the
        // assertions look at must already be on it.
        "{} up --provider demo --stack dev; status=$?; stty -a | tr ' ' '\\n' | grep -x -e echo -e -echo; echo \"exit=$status\"; sleep 60",
        runner.display()
    );
    let started = tmux(&["new-session", "-d", "-s", &session, "-x", "120", "-y", "30", "bash", "-c", &script]);
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let screen = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned();
    let wait_for = |needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let shown = screen();
            if shown.contains(needle) || Instant::now() > deadline {
                return shown;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    // The project's live line: the header names no project.
    let running = wait_for("network");
    std::thread::sleep(Duration::from_millis(800));
    tmux(&["send-keys", "-t", &session, "C-c"]);
    let after = wait_for("exit=");
    tmux(&["kill-server"]);
    assert!(running.contains("network"), "{running}");
    assert!(after.contains("exit=130"), "{after}");
    let spinners = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
    let stale: Vec<&str> = after.lines().filter(|line| line.chars().any(|c| spinners.contains(c))).collect();
    assert!(stale.is_empty(), "stale progress lines {stale:?} on:\n{after}");
    assert!(after.lines().any(|line| line.trim() == "echo"), "echo is back on:\n{after}");
    assert!(!after.contains("^C"), "{after}");
    let interrupted = after.find("interrupted: cancelling").expect("the interrupt is explained");
    assert!(after[interrupted..].contains("interrupted: "), "{after}");
}

/// A terminal made narrower while a project runs: its live line is refitted at the next redraw,
/// so it never wraps into a second line.
#[test]
fn a_resized_terminal_gets_its_live_line_refitted() {
    let provider = "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n\
                    on_success = [{ command = { argv = [\"sh\", \"-c\", \"sleep 8\", \"a-long-argument-that-makes-the-status-line-wide\"] } }]\n";
    let workspace = Workspace::with_fake_pulumi(provider, &["network"], "{}");
    workspace.env_file("PULUMI_STACK=dev\n");
    let session = format!("runner-resize-{}", std::process::id());
    let socket = workspace.path("tmux.sock");
    let tmux = |args: &[&str]| -> Output {
        let mut command = terminal_command(&workspace, "tmux");
        command.arg("-S").arg(&socket).args(args).output().unwrap()
    };
    let runner = assert_cmd::cargo::cargo_bin("runner");
    let script = format!("{} up --provider demo --stack dev; sleep 60", runner.display());
    let started = tmux(&["new-session", "-d", "-s", &session, "-x", "150", "-y", "20", "bash", "-c", &script]);
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let screen = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned();
    let wait_for = |found: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let shown = screen();
            if found(&shown) || Instant::now() > deadline {
                return shown;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let wide = wait_for(&|shown| shown.contains("-wide`"));
    tmux(&["resize-window", "-t", &session, "-x", "50"]);
    let live_line = |shown: &str| shown.lines().find(|line| line.contains("network")).map(str::to_string);
    let narrow = wait_for(&|shown| live_line(shown).is_some_and(|line| line.contains('…') && line.ends_with('s')));
    tmux(&["kill-server"]);
    assert!(wide.contains("run `sh -c sleep 8 a-long-argument-that-makes-the-status-line-wide`"), "{wide}");
    let line = live_line(&narrow).unwrap_or_default();
    assert!(line.contains('…') && line.trim_end().ends_with('s'), "the line is cut, elapsed time last: {narrow}");
    assert!(console::measure_text_width(line.trim_end()) <= 50, "{narrow}");
}

/// The terminal goes away mid-run (an SSH session drops, a window is closed): the runner stops
/// its projects as on Ctrl-C, records the run as interrupted and releases the stack, instead of
/// dying and leaving pulumi running on its own.
#[test]
fn a_closed_terminal_cancels_the_run_and_leaves_it_recorded() {
    let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
    let socket = workspace.path("tmux.sock");
    let tmux = |args: &[&str]| -> Output {
        let mut command = terminal_command(&workspace, "tmux");
        command.arg("-S").arg(&socket).args(args).output().unwrap()
    };
    let runner = assert_cmd::cargo::cargo_bin("runner");
    let script = format!("{} up --provider demo --stack dev; sleep 60", runner.display());
    let started = tmux(&["new-session", "-d", "-s", "hangup", "-x", "100", "-y", "20", "bash", "-c", &script]);
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let calls = || workspace.fake_invocations();
    wait_until("network to start", &|| calls().iter().any(|call| call["event"] == "start" && call["op"] == "up"));
    std::thread::sleep(Duration::from_millis(500));
    tmux(&["kill-server"]);

    let record = || -> Option<serde_json::Value> {
        let entry = std::fs::read_dir(workspace.path(".runner/history")).ok()?.flatten().next()?;
        serde_json::from_slice(&std::fs::read(entry.path()).ok()?).ok()
    };
    wait_until("the run to be recorded as ended", &|| record().is_some_and(|run| run["state"] != "running"));
    let run = record().unwrap();
    assert_eq!(run["state"], "interrupted", "{run:#}");
    wait_until("the stack lock to be released", &|| !workspace.path(".runner/locks/dev.lock").exists());
    let ups: Vec<serde_json::Value> = calls().into_iter().filter(|call| call["op"] == "up").collect();
    assert_eq!(ups.len(), 2, "pulumi up started and was stopped, not left running: {ups:?}");
    assert_eq!(ups[1]["exit"], 255, "{ups:?}");
    // Stopped by SIGINT, the way pulumi cancels cleanly: its own log ends with `cancelEvent`.
    let run_id = run["run_id"].as_str().unwrap();
    let events = std::fs::read_to_string(workspace.path(&format!(".runner/logs/{run_id}/network.events.jsonl")));
    assert!(events.unwrap_or_default().contains("cancelEvent"), "pulumi was cancelled, not killed");
}
