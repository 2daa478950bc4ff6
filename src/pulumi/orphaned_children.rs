//! A runner killed with `kill -9` cannot stop its `pulumi` children: they live on as orphans,
//! and one may still take a stack's lock after the next run has read the locks. The next run
//! finds them by the mark the dead runner put in their environment (`<runner pid>.<start
//! tick>-<n>`) and stops them before it reads any lock. The start tick keeps the children of a
//! later runner that got the dead one's pid out of reach: pids come back within minutes.

use std::time::{Duration, Instant};

use super::{ProcessMark, MARKER_VARIABLE};

/// How long each step of stopping a dead runner's children may take.
#[derive(Debug, Clone, Copy)]
struct Graces {
    /// For a `pulumi` to finish the cancellation its parent-death SIGINT started.
    settle: Duration,
    /// For one that never had that signal, after the SIGINT sent here.
    interrupt: Duration,
    /// For what is left after SIGKILL to be gone.
    kill: Duration,
}

const GRACES: Graces =
    Graces { settle: Duration::from_secs(30), interrupt: Duration::from_secs(30), kill: Duration::from_secs(5) };

/// Stops every process carrying a mark of the runner `runner_pid` that started at `start_ticks`
/// (`None`: a runner older than identities, whose marks had no tick). How many there were.
///
/// Each `pulumi` the runner started got SIGINT when the runner died (its parent-death signal)
/// and is cancelling: a second SIGINT makes `pulumi` exit at once, in the middle of writing its
/// checkpoint ("failed to load checkpoint: EOF" for the next run). So the `pulumi` processes are
/// first waited for; one still there gets a single SIGINT (it never had its signal); only what is
/// left once no `pulumi` runs (plugins, language hosts, a `pulumi` that would not stop) is killed.
pub(crate) fn stop_orphaned_children(runner_pid: u32, start_ticks: Option<u64>) -> usize {
    stop_with(&ProcessMark::prefix_of_runner(runner_pid, start_ticks), GRACES)
}

fn stop_with(runner: &str, graces: Graces) -> usize {
    let found = marked_by(runner);
    if found.is_empty() {
        return 0;
    }
    let pulumis = || marked_by(runner).into_iter().filter(|pid| is_pulumi(*pid)).collect::<Vec<_>>();
    wait_until(|| pulumis().is_empty(), graces.settle);
    let interrupted = pulumis();
    for &pid in &interrupted {
        crate::cancel::signal_process(pid, libc::SIGINT);
    }
    if !interrupted.is_empty() {
        wait_until(|| pulumis().is_empty(), graces.interrupt);
    }
    for pid in marked_by(runner) {
        crate::cancel::signal_process(pid, libc::SIGKILL);
    }
    wait_until(|| marked_by(runner).is_empty(), graces.kill);
    found.len()
}

fn wait_until(done: impl Fn() -> bool, grace: Duration) {
    let deadline = Instant::now() + grace;
    while !done() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `pulumi` CLI itself (the engine that writes the checkpoint), not one of its plugins.
fn is_pulumi(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|name| name.trim_end() == "pulumi")
}

/// Living (not zombie) processes whose environment holds `RUNNER_PROCESS_MARK=<runner>…`.
fn marked_by(runner: &str) -> Vec<i32> {
    let prefix = format!("{MARKER_VARIABLE}={runner}");
    let own = std::process::id() as i32;
    let Ok(processes) = std::fs::read_dir("/proc") else { return Vec::new() };
    processes
        .flatten()
        .filter_map(|process| process.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != own && crate::cancel::process_alive(pid as u32))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environment| {
                environment.split(|byte| *byte == 0).any(|variable| variable.starts_with(prefix.as_bytes()))
            })
        })
        .collect()
}

#[cfg(test)]
// Tests start real processes to check what the runner's own way does with them.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn the_children_of_a_dead_runner_are_stopped_and_no_others() {
        let spawn =
            |mark: &str| std::process::Command::new("sleep").arg("30").env(MARKER_VARIABLE, mark).spawn().unwrap();
        // A pid no runner has, started at tick 5: the "dead runner".
        let mut orphans = [spawn("999999991.5-1"), spawn("999999991.5-2")];
        // Left alone: a later runner that got the same pid, another runner, a mark of the older form.
        let mut others =
            [spawn("999999991.9-1"), spawn("999999992.5-1"), spawn("999999991-1"), spawn("999999991.55-1")];
        // Until `exec`, a child's /proc environment is still the test's.
        let deadline = Instant::now() + Duration::from_secs(20);
        while marked_by("999999991").len() < 5 || marked_by("999999992").is_empty() {
            assert!(Instant::now() < deadline, "the children never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let reaper = std::thread::spawn(move || {
            for orphan in &mut orphans {
                orphan.wait().unwrap();
            }
        });
        assert_eq!(stop_orphaned_children(999_999_991, Some(5)), 2);
        reaper.join().unwrap();
        for other in &others {
            assert!(crate::cancel::process_alive(other.id()), "another runner's child is left alone");
        }
        // A lock of a runner older than identities reaches the marks of its own older form only.
        let reaper = std::thread::spawn(move || {
            others[2].wait().unwrap();
            others
        });
        assert_eq!(stop_orphaned_children(999_999_991, None), 1);
        let others = reaper.join().unwrap();
        for (index, mut other) in others.into_iter().enumerate().filter(|(index, _)| *index != 2) {
            assert!(crate::cancel::process_alive(other.id()), "{index}: a child of an identified runner is left alone");
            other.kill().unwrap();
            other.wait().unwrap();
        }
    }

    /// A stand-in for `pulumi`'s signal handling, in `sh`: the first SIGINT starts a
    /// cancellation that saves the checkpoint a second later; a second SIGINT exits instead of
    /// saving (`sh` runs a trap once its `sleep` ends, so a second one is never missed).
    const CANCELLING_PULUMI: &str = "#!/bin/sh\ngot=0\ntrap 'got=$((got + 1)); if [ \"$got\" -gt 1 ]; then exit 130; fi' INT\n: > \"$1.ready\"\nwhile [ \"$got\" -eq 0 ]; do sleep 0.02; done\nsleep 1\nprintf saved > \"$1\"\n";

    #[test]
    fn a_pulumi_cancelling_after_its_runner_died_is_left_to_save_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        // A script named `pulumi`: its /proc name is `pulumi`.
        let script = dir.path().join("pulumi");
        std::fs::write(&script, CANCELLING_PULUMI).unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let saved = dir.path().join("checkpoint");
        let mut pulumi =
            std::process::Command::new(&script).arg(&saved).env(MARKER_VARIABLE, "999999993.5-1").spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !marked_by("999999993.5-").iter().any(|pid| is_pulumi(*pid)) {
            assert!(Instant::now() < deadline, "the stand-in never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Its SIGINT handler is in place once it says so.
        while !dir.path().join("checkpoint.ready").exists() {
            assert!(Instant::now() < deadline, "the stand-in never got ready");
            std::thread::sleep(Duration::from_millis(10));
        }
        // The runner's death: the parent-death SIGINT.
        crate::cancel::signal_process(pulumi.id() as i32, libc::SIGINT);
        let reaper = std::thread::spawn(move || pulumi.wait().unwrap());
        let graces =
            Graces { settle: Duration::from_secs(20), interrupt: Duration::from_secs(5), kill: Duration::from_secs(5) };
        // The stand-in, and the `sleep` it runs (which carries the mark too).
        assert!((1..=2).contains(&stop_with("999999993.5-", graces)));
        reaper.join().unwrap();
        assert_eq!(
            std::fs::read_to_string(&saved).ok().as_deref(),
            Some("saved"),
            "a second SIGINT cut its save short"
        );
    }
}
