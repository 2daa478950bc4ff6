//! A `destroy` interrupted with Ctrl-C is `cancelled` in every record, and `--resume` finishes it,
//! although the real `pulumi` winds down gracefully and exits 0 with a `succeeded` summary.

use std::time::{Duration, Instant};

use crate::support::kill;
use crate::support::Workspace;

const RESOURCES: usize = 60;

fn many_workspace() -> Workspace {
    let workspace = Workspace::with_real_pulumi();
    let mut program = String::from("name: many\nruntime: yaml\nresources:\n");
    for i in 0..RESOURCES {
        program.push_str(&format!("  r{i}:\n    type: pulumi:index:Stash\n    properties:\n      input: {i}\n"));
    }
    workspace
        .provider("many", "[[project]]\npath = \"many\"\nphase = \"infrastructure\"\n")
        .file("projects/many/Pulumi.yaml", program);
    workspace
}

fn deletes_logged(workspace: &Workspace) -> usize {
    workspace
        .listing()
        .into_iter()
        .filter(|file| file.starts_with(".runner/logs/") && file.ends_with("many.events.jsonl"))
        .map(|file| std::fs::read_to_string(workspace.path(&file)).unwrap_or_default())
        .map(|text| text.lines().filter(|l| l.contains("resOutputsEvent") && l.contains("\"op\":\"delete\"")).count())
        .max()
        .unwrap_or(0)
}

fn resources_left(workspace: &Workspace) -> usize {
    let state = std::fs::read_to_string(workspace.path(".state/.pulumi/stacks/many/dev.json")).unwrap();
    state.replace(' ', "").matches("\"urn\":\"urn:pulumi:dev::many::pulumi:index:Stash::").count()
}

#[test]
fn ext_ctrl_c_during_destroy_is_cancelled_and_resume_finishes_it() {
    let workspace = many_workspace();
    workspace.run(&["up", "--provider", "many", "--stack", "dev", "--non-interactive"]).expect_code(0);
    assert_eq!(resources_left(&workspace), RESOURCES);

    let runner = workspace
        .std_command(&["destroy", "--provider", "many", "--stack", "dev", "--non-interactive", "--yes"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while deletes_logged(&workspace) == 0 {
        assert!(Instant::now() < deadline, "pulumi never started deleting");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(runner.id() as i32, 2);
    let output = runner.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    let left = resources_left(&workspace);
    assert!(left > 0, "the destroy finished before the interrupt; nothing to prove:\n{stdout}");
    assert!(stdout.contains("0 succeeded, 0 failed, 0 skipped, 1 cancelled"), "{stdout}");

    let status = workspace.run(&["status", "--provider", "many", "--stack", "dev"]);
    assert!(status.stdout().contains("cancelled"), "{}", status.stdout());
    assert!(!status.stdout().contains("succeeded"), "{}", status.stdout());

    workspace
        .run(&["destroy", "--provider", "many", "--stack", "dev", "--non-interactive", "--yes", "--resume"])
        .expect_code(0)
        .expect_stderr_contains("1 of 1 project left to run");
    assert_eq!(resources_left(&workspace), 0);
}
