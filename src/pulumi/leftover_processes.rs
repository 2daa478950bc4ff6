//! Pulumi starts its language host and plugins in process groups of their own, so the signals
//! sent to pulumi's group do not reach them. A pulumi that is cancelled early in its start-up, or
//! killed, can exit without stopping them: they would run on, orphaned, after the runner is gone.
//! Each pulumi gets a marker in its environment, which its plugins inherit; after an abnormal end
//! every process still carrying the marker is stopped.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::cancel::ProcessIdentity;

/// The environment variable that marks a pulumi invocation and everything it starts.
pub(crate) const MARKER_VARIABLE: &str = "RUNNER_PROCESS_MARK";

/// A mark no other invocation on this machine carries, ever: this runner's identity (its pid and
/// start tick, so a later runner that gets the same pid marks differently) and a counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcessMark(String);

impl ProcessMark {
    pub(crate) fn unique() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(format!("{}-{}", ProcessIdentity::current().token(), NEXT.fetch_add(1, Ordering::Relaxed)))
    }

    /// The runner that made `mark` (a value of [`MARKER_VARIABLE`]); `None` for a mark of a
    /// runner older than identities, whose runner is then never judged gone.
    pub(crate) fn runner_of(mark: &str) -> Option<ProcessIdentity> {
        ProcessIdentity::parse(mark.rsplit_once('-')?.0)
    }

    /// What every mark of the runner `pid` (started at `start_ticks`, when known) begins with.
    /// Without the tick (a lock of a runner older than identities) only marks of that older
    /// form match, never those of a runner that got the same pid later.
    pub(crate) fn prefix_of_runner(pid: u32, start_ticks: Option<u64>) -> String {
        match start_ticks {
            Some(start_ticks) => format!("{}-", ProcessIdentity { pid, start_ticks }.token()),
            None => format!("{pid}-"),
        }
    }

    pub(crate) fn value(&self) -> &str {
        &self.0
    }

    /// Sends SIGKILL to every process carrying this mark; the pids it stopped. Processes that
    /// vanish or cannot be read while the list is made are skipped.
    pub(crate) fn stop_marked_processes(&self) -> Vec<i32> {
        let entry = format!("{MARKER_VARIABLE}={}", self.0);
        let own = std::process::id() as i32;
        let Ok(processes) = std::fs::read_dir("/proc") else { return Vec::new() };
        let mut stopped = Vec::new();
        for process in processes.flatten() {
            let Some(pid) = process.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
            if pid == own {
                continue;
            }
            let Ok(environment) = std::fs::read(process.path().join("environ")) else { continue };
            if environment.split(|byte| *byte == 0).any(|variable| variable == entry.as_bytes())
                && crate::cancel::signal_process(pid, libc::SIGKILL)
            {
                stopped.push(pid);
            }
        }
        stopped
    }
}

#[cfg(test)]
// Tests start real processes to check what the runner's own way does with them.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    fn alive(pid: i32) -> bool {
        // A stopped orphan is reaped by init; until then it is a zombie, which counts as gone.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z'))
    }

    #[test]
    fn an_orphan_carrying_the_mark_is_stopped_and_others_are_not() {
        let mark = ProcessMark::unique();
        let other = ProcessMark::unique();
        assert_ne!(mark, other);
        let orphan_of = |mark: &ProcessMark| -> i32 {
            // The parent starts a sleeper in a new session and exits at once, like a pulumi that
            // leaves its language host behind.
            let output = Command::new("sh")
                .args(["-c", "setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!"])
                .env(MARKER_VARIABLE, mark.value())
                .stderr(Stdio::null())
                .output()
                .unwrap();
            String::from_utf8_lossy(&output.stdout).trim().parse().unwrap()
        };
        let orphan = orphan_of(&mark);
        let bystander = orphan_of(&other);
        assert!(alive(orphan) && alive(bystander));
        assert_eq!(mark.stop_marked_processes(), vec![orphan]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive(orphan) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(orphan), "the marked orphan was stopped");
        assert!(alive(bystander), "another invocation's process is left alone");
        assert_eq!(other.stop_marked_processes(), vec![bystander]);
    }
}
