//! A runner killed with `kill -9` cannot stop its `pulumi` children: they live on as orphans,
//! and one may still take a stack's lock after the next run has read the locks. The next run
//! finds them by the mark the dead runner put in their environment (`<runner pid>-<n>`) and
//! stops them before it reads any lock.

use std::time::{Duration, Instant};

use super::MARKER_VARIABLE;

/// Stops every process carrying a mark of runner `runner_pid`: SIGINT first (a `pulumi`
/// cancels and releases its lock), SIGKILL for what is left after a grace. How many there were.
pub fn stop_orphaned_children(runner_pid: u32) -> usize {
    let found = marked_by(runner_pid);
    if found.is_empty() {
        return 0;
    }
    for (signal, grace) in [(libc::SIGINT, Duration::from_secs(10)), (libc::SIGKILL, Duration::from_secs(5))] {
        for pid in marked_by(runner_pid) {
            // SAFETY: only a signal, to a pid read from /proc just now.
            unsafe { libc::kill(pid, signal) };
        }
        let deadline = Instant::now() + grace;
        while !marked_by(runner_pid).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    found.len()
}

/// Living (not zombie) processes whose environment holds `RUNNER_PROCESS_MARK=<runner_pid>-…`.
fn marked_by(runner_pid: u32) -> Vec<i32> {
    let prefix = format!("{MARKER_VARIABLE}={runner_pid}-");
    let own = std::process::id() as i32;
    let Ok(processes) = std::fs::read_dir("/proc") else { return Vec::new() };
    processes
        .flatten()
        .filter_map(|process| process.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != own && crate::history::process_alive(pid as u32))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environment| {
                environment.split(|byte| *byte == 0).any(|variable| variable.starts_with(prefix.as_bytes()))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_children_of_a_dead_runner_are_stopped_and_no_others() {
        let spawn =
            |mark: &str| std::process::Command::new("sleep").arg("30").env(MARKER_VARIABLE, mark).spawn().unwrap();
        // A pid no runner has: the "dead runner".
        let mut orphans = [spawn("999999991-1"), spawn("999999991-2")];
        let mut other = spawn("999999992-1");
        // Until `exec`, a child's /proc environment is still the test's.
        let deadline = Instant::now() + Duration::from_secs(20);
        while marked_by(999_999_991).len() < 2 || marked_by(999_999_992).is_empty() {
            assert!(Instant::now() < deadline, "the children never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let reaper = std::thread::spawn(move || {
            for orphan in &mut orphans {
                orphan.wait().unwrap();
            }
        });
        assert_eq!(stop_orphaned_children(999_999_991), 2);
        reaper.join().unwrap();
        assert!(crate::history::process_alive(other.id()), "another runner's child is left alone");
        other.kill().unwrap();
        other.wait().unwrap();
    }
}
