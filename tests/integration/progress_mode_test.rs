//! The progress mode is chosen once: a CI engine that gives each step a terminal (`act`,
//! Buildkite, Jenkins with a pty) sets `CI` and gets timestamped lines, never a redraw.

use crate::support::{Workspace, BRANCHES};

fn redraws(transcript: &str) -> bool {
    transcript.contains("\u{1b}[2K") || transcript.contains("\r\u{1b}")
}

#[test]
fn ci_on_a_terminal_writes_plain_lines_and_a_person_gets_live_ones() {
    let workspace = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], "{}");
    workspace.env_file("PULUMI_STACK=dev\n");
    let up = ["up", "--provider", "demo", "--stack", "dev", "--non-interactive"];
    for (ci, progress, live) in [
        (None, None, true),
        (Some("true"), None, false),
        (Some("true"), Some("live"), true),
        (None, Some("plain"), false),
        (Some("false"), None, true),
    ] {
        let mut args: Vec<&str> = up.to_vec();
        if let Some(mode) = progress {
            args.extend(["--progress", mode]);
        }
        let mut command = workspace.in_a_terminal("[]", &args);
        if let Some(ci) = ci {
            command.env("CI", ci);
        }
        let output = command.output().unwrap();
        let transcript = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{transcript}");
        assert_eq!(redraws(&transcript), live, "CI={ci:?} --progress {progress:?}: {transcript:?}");
        if !live {
            assert!(transcript.lines().any(|line| line.contains(" a succeeded")), "{transcript}");
        }
    }
}
