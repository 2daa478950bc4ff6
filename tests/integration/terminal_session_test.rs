//! A person at a terminal: the destroy confirmation, Ctrl-C at a prompt and during a run, and
//! what the terminal looks like afterwards (cursor, echo, no stale progress line).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::Workspace;
use crate::tmux_session::TmuxSession;

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
fn ext_after_ctrl_c_the_screen_has_no_stale_progress_line() {
    let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
    let script = format!(
        // `exit=` comes last: the test reads the screen once it appears, so everything the
        // assertions look at must already be on it.
        "{} up --provider demo --stack dev; status=$?; stty -a | tr ' ' '\\n' | grep -x -e echo -e -echo; echo \"exit=$status\"; sleep 60",
        runner().display()
    );
    let terminal = TmuxSession::start(&workspace, 120, 30, &script);
    // The project's live line: the header names no project.
    let running = terminal.screen_when(|shown| shown.contains("network"));
    workspace.wait_for_fake_mark(None, "up", "working");
    terminal.send_keys("C-c");
    let after = terminal.screen_when(|shown| shown.contains("exit="));
    terminal.close();
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
fn ext_a_resized_terminal_gets_its_live_line_refitted() {
    let provider = "[[project]]\npath = \"network\"\nphase = \"infrastructure\"\n\
                    on_success = [{ command = { argv = [\"sh\", \"-c\", \"sleep 8\", \"a-long-argument-that-makes-the-status-line-wide\"] } }]\n";
    let workspace = Workspace::with_fake_pulumi(provider, &["network"], "{}");
    workspace.env_file("PULUMI_STACK=dev\n");
    let script = format!("{} up --provider demo --stack dev; sleep 60", runner().display());
    let terminal = TmuxSession::start(&workspace, 150, 20, &script);
    let wide = terminal.screen_when(|shown| shown.contains("-wide`"));
    terminal.resize(50);
    let live_line = |shown: &str| shown.lines().find(|line| line.contains("network")).map(str::to_string);
    let narrow =
        terminal.screen_when(|shown| live_line(shown).is_some_and(|line| line.contains('…') && line.ends_with('s')));
    terminal.close();
    assert!(wide.contains("run `sh -c sleep 8 a-long-argument-that-makes-the-status-line-wide`"), "{wide}");
    let line = live_line(&narrow).unwrap_or_default();
    assert!(line.contains('…') && line.trim_end().ends_with('s'), "the line is cut, elapsed time last: {narrow}");
    assert!(console::measure_text_width(line.trim_end()) <= 50, "{narrow}");
}

/// The terminal goes away mid-run (an SSH session drops, a window is closed): the runner stops
/// its projects as on Ctrl-C, records the run as interrupted and releases the stack, instead of
/// dying and leaving pulumi running on its own.
#[test]
fn ext_a_closed_terminal_cancels_the_run_and_leaves_it_recorded() {
    let workspace = workspace(r#"{"default": {"sleep": 30, "cancel_sleep": 0.2}}"#);
    let script = format!("{} up --provider demo --stack dev; sleep 60", runner().display());
    let terminal = TmuxSession::start(&workspace, 100, 20, &script);
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let calls = || workspace.fake_invocations();
    wait_until("network to start", &|| calls().iter().any(|call| call["event"] == "start" && call["op"] == "up"));
    workspace.wait_for_fake_mark(None, "up", "working");
    terminal.close();

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

fn runner() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("runner")
}
