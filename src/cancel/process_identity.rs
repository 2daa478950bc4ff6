//! Which process a pid names now: when it started (`/proc/PID/stat`) and whether a pid seen from
//! here may belong to a process in another pid namespace. A lock, a run record or a child's mark
//! is judged by the process that wrote it, never by a pid that came back.

/// When process `pid` started, in seconds since the epoch (to the clock tick); `None` when it
/// is gone or unreadable.
pub(crate) fn process_start_time(pid: u32) -> Option<f64> {
    let ticks = read_stat(pid)?.start_ticks;
    let per_second = rustix::param::clock_ticks_per_second();
    Some(boot_time()? + ticks as f64 / per_second as f64)
}

/// A process, named so that a pid that came back names another one: its pid and the clock tick
/// it started at (`starttime` of `/proc/PID/stat`, fixed for the process's whole life). Pids are
/// reused within minutes on a busy host (`pid_max` is often 32768): whatever decides that a
/// recorded process is gone, or that a process is one of its children, asks this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ProcessIdentity {
    pub pid: u32,
    pub start_ticks: u64,
}

impl ProcessIdentity {
    /// The process `pid` names now; `None` when there is none (or it is a zombie).
    pub(crate) fn of(pid: u32) -> Option<Self> {
        let stat = read_stat(pid)?;
        (!stat.zombie).then_some(Self { pid, start_ticks: stat.start_ticks })
    }

    /// This process. Its start is read once: it never changes.
    pub(crate) fn current() -> Self {
        static CURRENT: std::sync::OnceLock<ProcessIdentity> = std::sync::OnceLock::new();
        *CURRENT.get_or_init(|| {
            let pid = std::process::id();
            // `/proc` unmounted: tick 0 never matches a real process, so nothing is judged ours.
            Self::of(pid).unwrap_or(Self { pid, start_ticks: 0 })
        })
    }

    /// True while this very process runs: not after it exited (a zombie holds nothing), and not
    /// for another process that got its pid since.
    pub(crate) fn is_running(&self) -> bool {
        Self::of(self.pid) == Some(*self)
    }

    /// `PID.TICKS`, as written into marks and records.
    pub(crate) fn token(&self) -> String {
        format!("{}.{}", self.pid, self.start_ticks)
    }

    /// Reads [`Self::token`] back; `None` for anything else (a bare pid included).
    pub(crate) fn parse(token: &str) -> Option<Self> {
        let (pid, ticks) = token.split_once('.')?;
        Some(Self { pid: pid.parse().ok()?, start_ticks: ticks.parse().ok()? })
    }
}

/// Whether the process a record names still runs: by its identity when the record has its start
/// tick, else (a record written before the tick was kept) by its pid alone, which keeps an old
/// record "running" rather than ever judging a live process gone.
pub(crate) fn recorded_process_runs(pid: u32, start_ticks: Option<u64>) -> bool {
    match start_ticks {
        Some(start_ticks) => ProcessIdentity { pid, start_ticks }.is_running(),
        None => super::process_alive(pid),
    }
}

struct ProcessStat {
    zombie: bool,
    start_ticks: u64,
}

fn read_stat(pid: u32) -> Option<ProcessStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces: the fields follow the last `)`, the
    // first of them being field 3 (the state); `starttime` is field 22.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(ProcessStat { zombie: *fields.first()? == "Z", start_ticks: fields.get(22 - 3)?.parse().ok()? })
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
pub(crate) fn pid_may_live_elsewhere(pid: u32) -> bool {
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
    fn an_identity_names_one_process_and_never_the_next_one_with_its_pid() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let identity = ProcessIdentity::of(child.id()).expect("a live child");
        assert!(identity.is_running());
        assert_eq!(ProcessIdentity::parse(&identity.token()), Some(identity));
        // The same pid, started at any other tick: another process.
        for other in [0, identity.start_ticks - 1, identity.start_ticks + 1, u64::MAX] {
            let reused = ProcessIdentity { start_ticks: other, ..identity };
            assert!(!reused.is_running(), "{other}");
            assert!(!recorded_process_runs(identity.pid, Some(other)), "{other}");
        }
        assert!(recorded_process_runs(identity.pid, Some(identity.start_ticks)));
        assert!(recorded_process_runs(identity.pid, None), "an old record keeps a live pid running");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!identity.is_running());
        assert!(ProcessIdentity::current().is_running());
        for token in ["", "42", "42-1", ".7", "42.", "x.7", "42.7.1"] {
            assert_eq!(ProcessIdentity::parse(token), None, "{token}");
        }
    }

    #[test]
    fn namespace_pids_read_every_level() {
        assert_eq!(namespace_pids("Name:\tsh\nNSpid:\t4242\t7\t1\nNSpgid: 1\n"), [4242, 7, 1]);
        assert_eq!(namespace_pids("Name:\tsh\nNSpid:\t4242\n"), [4242]);
        assert!(namespace_pids("Name:\tsh\n").is_empty());
    }
}
