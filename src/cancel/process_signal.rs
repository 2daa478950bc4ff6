//! Signals to processes and process groups through rustix's safe calls: the raw numbers the
//! rest of the runner passes around (`libc::SIGINT`...) in, a plain "was it delivered" out.

use rustix::process::{Pid, Signal};

/// The signals the runner sends; anything else is not sent.
fn signal(raw: i32) -> Option<Signal> {
    match raw {
        libc::SIGINT => Some(Signal::INT),
        libc::SIGTERM => Some(Signal::TERM),
        libc::SIGKILL => Some(Signal::KILL),
        _ => None,
    }
}

/// A real process id: rustix refuses (panics on) a negative one, and 0 would mean our own group.
fn pid(raw: i32) -> Option<Pid> {
    if raw > 0 {
        Pid::from_raw(raw)
    } else {
        None
    }
}

/// Sends `raw` to process `pid`; true when it was delivered.
pub(crate) fn signal_process(pid: i32, raw: i32) -> bool {
    match (self::pid(pid), signal(raw)) {
        (Some(pid), Some(signal)) => rustix::process::kill_process(pid, signal).is_ok(),
        _ => false,
    }
}

/// Sends `raw` to every process of the group `leader` leads; true when it was delivered.
pub(crate) fn signal_group(leader: i32, raw: i32) -> bool {
    match (self::pid(leader), signal(raw)) {
        (Some(leader), Some(signal)) => rustix::process::kill_process_group(leader, signal).is_ok(),
        _ => false,
    }
}

/// Whether process `pid` exists: signal 0 checks without touching it; EPERM means it exists
/// under another user.
pub(crate) fn process_exists(pid: i32) -> bool {
    let Some(pid) = self::pid(pid) else { return false };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(err) => err == rustix::io::Errno::PERM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_signals_and_real_pids_are_sent() {
        assert!(!signal_process(0, libc::SIGKILL), "pid 0 is this process's group, never meant");
        assert!(!signal_process(std::process::id() as i32, libc::SIGHUP), "not a signal the runner sends");
        assert!(process_exists(std::process::id() as i32));
        assert!(!process_exists(-1));
    }
}
