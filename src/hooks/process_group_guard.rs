//! Hooks and gates run in their own process group; when one is abandoned (timeout, cancelled
//! run) the whole group is killed, not just the direct child: `sh -c 'sleep 600'` leaves nothing.

/// Kills the process group `pid` leads when dropped, unless the process ended on its own.
pub struct ProcessGroupGuard {
    pid: Option<i32>,
}

impl ProcessGroupGuard {
    /// `pid` of a child spawned with `process_group(0)`.
    pub fn new(pid: Option<u32>) -> Self {
        Self { pid: pid.and_then(|pid| i32::try_from(pid).ok()).filter(|pid| *pid > 0) }
    }

    /// The child ended by itself: its group may still hold background children, which are
    /// left alone as a shell would leave them.
    pub fn disarm(mut self) {
        self.pid = None;
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
}
