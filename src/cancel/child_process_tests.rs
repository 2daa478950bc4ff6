use std::time::Duration;

use super::*;

fn sh(script: &str) -> ChildProcess {
    let mut child = ChildProcess::new("sh").arg("-c").arg(script);
    child.output_grace = Duration::from_millis(100);
    child
}

/// Gone, or a zombie waiting for init to reap it.
fn gone(pid: u32) -> bool {
    !crate::cancel::process_alive(pid)
        || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
}

fn wait_gone(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(pid) {
        assert!(Instant::now() < deadline, "process {pid} outlived its group");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pid_in(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(pid) = std::fs::read_to_string(file).unwrap_or_default().trim().parse() {
            return pid;
        }
        assert!(Instant::now() < deadline, "no pid in {}", file.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A background child holding stdout, stderr or both (`kubectl port-forward &`) changes
/// nothing: the exit status decides, and what was printed before the exit is kept.
#[tokio::test]
async fn the_exit_status_decides_though_a_background_child_holds_the_output() {
    for held in ["", ">/dev/null", "2>/dev/null"] {
        for code in [0, 3] {
            let dir = tempfile::tempdir().unwrap();
            let pid_file = dir.path().join("background.pid");
            let script = format!("echo before >&2; sleep 300 {held} & echo $! > {}; exit {code}", pid_file.display());
            let output = sh(&script).timeout(Duration::from_secs(60)).output(&Cancellation::new()).await;
            // Left alone, as a shell leaves a background job; the test cleans up after itself.
            crate::cancel::signal_process(pid_in(&pid_file) as i32, libc::SIGKILL);
            assert_eq!(output.end, ChildEnd::Exited(code), "{held}: {output:?}");
            assert_eq!(output.stderr_text(), "before\n", "{held}");
        }
    }
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let script = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
    let output = sh(&script).timeout(Duration::from_millis(500)).output(&Cancellation::new()).await;
    assert_eq!(output.end, ChildEnd::TimedOut(Duration::from_millis(500)));
    wait_gone(pid_in(&pid_file));
}

#[tokio::test]
async fn a_kill_reaches_the_whole_group_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    // Neither the shell nor its child reacts to SIGINT: only the kill stops them.
    let script = format!("trap '' INT; sleep 300 & echo $! > {}; wait", pid_file.display());
    let cancellation = Cancellation::new();
    let stopper = cancellation.clone();
    let pid_file_seen = pid_file.clone();
    tokio::spawn(async move {
        tokio::task::spawn_blocking(move || pid_in(&pid_file_seen)).await.unwrap();
        stopper.escalate_next();
        tokio::time::sleep(Duration::from_millis(200)).await;
        stopper.escalate_next();
    });
    let output = sh(&script).output(&cancellation).await;
    assert!(output.cancelled);
    assert_eq!(output.end, ChildEnd::Signaled(libc::SIGKILL), "{output:?}");
    wait_gone(pid_in(&pid_file));
}

/// A child that ignores SIGINT is not waited on forever: SIGTERM follows after the grace.
#[tokio::test]
async fn a_child_ignoring_sigint_is_terminated_after_the_grace() {
    let cancellation = Cancellation::new();
    let stopper = cancellation.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        stopper.escalate(CancelLevel::Graceful);
    });
    let mut child = sh("trap '' INT; sleep 300");
    child.interrupt_grace = Duration::from_millis(300);
    let output = child.output(&cancellation).await;
    assert!(output.cancelled);
    assert_eq!(output.end, ChildEnd::Signaled(libc::SIGTERM), "{output:?}");
}

#[tokio::test]
async fn stdin_is_written_and_closed() {
    let output = sh("cat").stdin_bytes("the value").output_blocking(&Cancellation::new());
    assert_eq!(output.stdout_text(), "the value");
    assert!(output.success());
}

#[test]
fn a_missing_program_says_so() {
    let output = ChildProcess::new("/nonexistent/program").output_blocking(&Cancellation::new());
    assert!(matches!(&output.end, ChildEnd::SpawnFailed(reason) if reason.contains("/nonexistent/program")));
}
