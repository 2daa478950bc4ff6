//! Output that cannot be written is dropped, never a panic: a pipe closed by its reader, a
//! terminal that hung up while the run went on.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{Workspace, BRANCHES};
use crate::tmux_session::TmuxSession;

#[test]
fn a_closed_stdout_pipe_changes_nothing_but_the_output() {
    let workspace = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], "{}");
    workspace.env_file("PULUMI_STACK=dev\n");
    for args in
        [&["validate", "--provider", "demo", "--stack", "dev"][..], &["up", "--provider", "demo", "--stack", "dev"]]
    {
        let mut child = workspace.std_command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // The reader goes away before the runner has written anything.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// The terminal hangs up but the runner gets no SIGHUP (its parent keeps the session, as a
/// wrapper that handles SIGHUP does): the run finishes and records its result; the lines and the
/// footer it can no longer print are dropped instead of crashing the runner. The terminal goes at
/// two moments: once the run's header is shown (every project line is lost) and once a project
/// has ended.
#[test]
fn ext_a_run_outliving_its_terminal_finishes_without_a_crash() {
    for moment in ["up 4 projects of `demo`", "succeeded"] {
        run_outliving_its_terminal(moment);
    }
}

fn run_outliving_its_terminal(moment: &str) {
    let workspace = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], r#"{"default": {"sleep": 1.5}}"#);
    workspace.env_file("PULUMI_STACK=dev\n");
    let exit_file = workspace.path("exit-code");
    // The code goes to a temporary name first: the test polls for `exit-code` and must never read
    // it created but not yet written.
    let wrapper = "import os, signal, subprocess, sys\n\
                   signal.signal(signal.SIGHUP, lambda *_: None)\n\
                   child = subprocess.Popen(sys.argv[2:])\n\
                   while True:\n    try:\n        code = child.wait()\n        break\n    except InterruptedError:\n        pass\n\
                   with open(sys.argv[1] + '.partial', 'w') as partial:\n    partial.write(str(code))\n\
                   os.replace(sys.argv[1] + '.partial', sys.argv[1])\n";
    std::fs::write(workspace.path("keep-session.py"), wrapper).unwrap();
    let script = format!(
        "python3 keep-session.py '{}' '{}' up --provider demo --stack dev",
        exit_file.display(),
        assert_cmd::cargo::cargo_bin("runner").display()
    );
    let terminal = TmuxSession::start(&workspace, 100, 20, &script);
    let screen = terminal.screen_when(|shown| shown.contains(moment));
    assert!(screen.contains(moment), "the run never showed `{moment}`:\n{screen}");
    terminal.close();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !exit_file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let code = std::fs::read_to_string(&exit_file).expect("the wrapper saw the runner end");
    assert_eq!(code, "0", "closed at `{moment}`: the run finished and said so in its exit code (101 is a panic)");
    let status = workspace.run(&["status", "--provider", "demo", "--stack", "dev"]);
    assert_eq!(status.stdout().matches("succeeded").count(), 4, "closed at `{moment}`: {}", status.stdout());
}
