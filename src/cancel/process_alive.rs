/// Whether process `pid` still exists on this host. Signal 0 checks existence without touching the process; EPERM means it exists.
/// A zombie (state `Z` in `/proc/PID/stat`) has exited and only waits for its parent to reap it:
/// it holds nothing any more, so it counts as gone.
pub(crate) fn process_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    super::process_exists(pid) && !is_zombie(pid)
}

fn is_zombie(pid: i32) -> bool {
    // The command name in parentheses may hold spaces and parentheses: the state follows the last `)`.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z'))
}

#[cfg(test)]
// Tests start real processes to check what the runner's own way does with them.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not reaped yet: a zombie as soon as it exits.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !is_zombie(pid as i32) {
            assert!(std::time::Instant::now() < deadline, "`true` never exited");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!process_alive(pid), "a zombie holds nothing");
        child.wait().unwrap();
        assert!(!process_alive(pid));
        assert!(process_alive(std::process::id()));
    }
}
