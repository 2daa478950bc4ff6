//! Nothing is lost silently: unwritable records and report paths stop a run before it starts,
//! unreadable history is named, and every record is private.

use std::os::unix::fs::PermissionsExt;

use crate::snapshot::{runner_snapshot, Redactions};
use crate::support::{Workspace, BRANCHES};

fn workspace() -> Workspace {
    Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], "{}")
}

fn up(workspace: &Workspace, extra: &[&str]) -> crate::support::RunOutput {
    let mut args = vec!["up", "--provider", "demo", "--stack", "dev", "--non-interactive"];
    args.extend_from_slice(extra);
    workspace.run(&args)
}

#[test]
fn an_unwritable_history_or_report_path_stops_the_run_before_anything_runs() {
    let workspace = workspace();
    workspace.file(".runner/history", "a file where the history folder belongs");
    let (redactions, up) =
        (Redactions::of(&workspace), ["up", "--provider", "demo", "--stack", "dev", "--non-interactive"]);
    runner_snapshot!("history_is_a_file", redactions, workspace.std_command(&up));
    workspace.file("reports/run.json/keep", "");
    std::fs::remove_file(workspace.path(".runner/history")).unwrap();
    let with_report = [&up[..], &["--report=json=reports/run.json"]].concat();
    runner_snapshot!("report_is_a_folder", redactions, workspace.std_command(&with_report));
    assert!(workspace.fake_invocations().is_empty(), "nothing may run");
}

#[test]
fn an_unreadable_run_record_is_named_and_logs_are_private() {
    let workspace = workspace();
    up(&workspace, &[]).expect_code(0);
    for file in workspace.listing().into_iter().filter(|f| f.starts_with(".runner/logs/") && f.ends_with(".log")) {
        let mode = std::fs::metadata(workspace.path(&file)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{file}");
    }
    workspace.file(".runner/history/20990101T000000Z-1.json", "{ truncated");
    let status = ["status", "--provider", "demo", "--stack", "dev"];
    runner_snapshot!("status_skips_it", Redactions::of(&workspace).status_table(), workspace.std_command(&status));
}

#[test]
fn a_run_whose_runner_died_shows_as_interrupted_in_history() {
    let workspace = workspace();
    let host = String::from_utf8(std::process::Command::new("hostname").output().unwrap().stdout).unwrap();
    workspace.file(
        ".runner/history/20260101T000000Z-1.json",
        format!(
            r#"{{"run_id":"20260101T000000Z-1","provider":"demo","stack":"dev","operation":"up","state":"running","pid":999999999,"host":"{}","started":1.0,"ended":null,"projects":[]}}"#,
            host.trim()
        ),
    );
    runner_snapshot!(Redactions::of(&workspace).history_table(), workspace.std_command(&["history"]));
}

/// History that becomes unwritable during the run (a full disk, a removed folder) is a warning
/// and exit 1, never a silent exit 0 with nothing recorded.
#[test]
fn history_lost_during_the_run_warns_and_exits_1() {
    let workspace = Workspace::with_fake_pulumi(BRANCHES, &["a", "b", "c", "d"], r#"{"default": {"sleep": 1.5}}"#);
    let child = workspace
        .std_command(&["up", "--provider", "demo", "--stack", "dev", "--non-interactive", "--parallelism", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !workspace.fake_invocations().iter().any(|line| line["event"] == "start" && line["op"] == "up") {
        assert!(std::time::Instant::now() < deadline, "nothing started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::remove_dir_all(workspace.path(".runner/history")).unwrap();
    std::fs::write(workspace.path(".runner/history"), "in the way").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the run history could not be written"), "{stderr}");
}
