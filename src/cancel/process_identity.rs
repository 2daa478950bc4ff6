//! Which process a pid names now: when it started (`/proc/PID/stat`) and whether a pid seen from
//! here may belong to a process in another pid namespace. A lock is judged by the process that
//! wrote it, never by a pid that came back.

/// When process `pid` started, in seconds since the epoch (to the clock tick); `None` when it
/// is gone or unreadable.
pub fn process_start_time(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces: the fields follow the last `)`, the
    // first of them being field 3 (the state); `starttime` is field 22.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(22 - 3)?.parse().ok()?;
    let per_second = rustix::param::clock_ticks_per_second();
    Some(boot_time()? + ticks as f64 / per_second as f64)
}

/// `btime` of `/proc/stat`: when this host booted, in whole seconds since the epoch.
fn boot_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines().find_map(|line| line.strip_prefix("btime ")?.trim().parse().ok())
}

/// The pids of `status`'s `NSpid:` line, outermost namespace first.
fn namespace_pids(status: &str) -> Vec<u32> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("NSpid:"))
        .map(|pids| pids.split_whitespace().filter_map(|pid| pid.parse().ok()).collect())
        .unwrap_or_default()
}

/// Whether a dead `pid` on this host may still be alive for a process of another pid namespace
/// that shares this host's name (a container): this process lives in a nested namespace (its
/// parent's processes are out of sight), or a process seen from here has `pid` as its pid in an
/// inner namespace.
pub fn pid_may_live_elsewhere(pid: u32) -> bool {
    let own = std::fs::read_to_string("/proc/self/status").map(|status| namespace_pids(&status)).unwrap_or_default();
    if own.len() != 1 {
        return true;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else { return true };
    entries.flatten().any(|entry| {
        let is_process = entry.file_name().to_str().is_some_and(|name| name.bytes().all(|byte| byte.is_ascii_digit()));
        is_process
            && std::fs::read_to_string(entry.path().join("status"))
                .is_ok_and(|status| namespace_pids(&status).iter().skip(1).any(|inner| *inner == pid))
    })
}

#[cfg(test)]
// Tests start real processes to check what the runner's own way does with them.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_process_started_now_and_this_one_before_it() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
        let started = process_start_time(child.id()).expect("a live child's start");
        assert!((started - now).abs() < 5.0, "{started} vs {now}");
        assert!(process_start_time(std::process::id()).unwrap() <= started + 0.02);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(process_start_time(child.id()), None);
    }

    #[test]
    fn namespace_pids_read_every_level() {
        assert_eq!(namespace_pids("Name:\tsh\nNSpid:\t4242\t7\t1\nNSpgid: 1\n"), [4242, 7, 1]);
        assert_eq!(namespace_pids("Name:\tsh\nNSpid:\t4242\n"), [4242]);
        assert!(namespace_pids("Name:\tsh\n").is_empty());
    }
}
