//! Pulumi's own stack locks, read the same way on every DIY backend: who holds one (user, host,
//! pid, since when) and whether that holder is provably gone. Nothing is ever guessed: a lock is
//! gone only when the process that wrote it ran on this host and no longer runs, judged from
//! this host's processes when it is decided (`holder_verdict`), never from a run record.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::{Backend, ChildEnvironment, ProcessMark, MARKER_VARIABLE};
use crate::backend::{open_object_store, shown_url};
use crate::cancel::process_alive;
use crate::cancel::{pid_may_live_elsewhere, process_start_time, ProcessIdentity};
use crate::history::host_name;

/// A lock object (`.pulumi/locks/<org>/<project>/<stack>/<id>.json`) as the real CLI writes it:
/// `{"pid":20701,"username":"root","hostname":"vm","timestamp":"2026-11-22T22:05:19Z"}`.
#[derive(Debug, Clone, Default, Deserialize)]
struct LockContent {
    #[serde(default)]
    pid: u32,
    #[serde(default)]
    username: String,
    #[serde(default)]
    hostname: String,
    #[serde(default)]
    timestamp: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum LockPlace {
    File(PathBuf),
    /// A key in the backend's object store (S3, Azure Blob, Google Cloud Storage).
    StoreKey(String),
}

/// One lock on a stack and who holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PulumiLock {
    place: LockPlace,
    /// 0 when the lock object could not be read.
    pub pid: u32,
    pub username: String,
    pub hostname: String,
    pub timestamp: String,
}

/// What the runner knows of a lock's holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HolderState {
    /// This host, and the process is dead or a zombie: nothing will ever release the lock.
    Gone,
    /// A `pulumi` on this host whose runner is gone: nobody reads what it does, and once it is
    /// stopped its lock is gone too.
    Orphan { command: String },
    /// A process on this host that runs; its command line when readable.
    Live { command: String },
    /// Another host (or an unreadable lock): only its holder knows.
    Unknown,
}

impl PulumiLock {
    /// `pulumi` pid 123 of `root@vm` since 2026-11-22T22:05:19Z
    pub(crate) fn describe(&self) -> String {
        if self.pid == 0 {
            return format!("an unreadable lock (`{}`)", self.location());
        }
        let since = if self.timestamp.is_empty() { String::new() } else { format!(" since {}", self.timestamp) };
        format!("`pulumi` pid {} of `{}@{}`{since}", self.pid, self.username, self.hostname)
    }

    /// As `describe`, with the holder's command line when this host can read it.
    pub(crate) fn describe_holder(&self, state: &HolderState) -> String {
        match state {
            HolderState::Live { command } | HolderState::Orphan { command } if !command.is_empty() => {
                format!("{} (`{command}`)", self.describe())
            }
            _ => self.describe(),
        }
    }

    pub(crate) fn location(&self) -> String {
        match &self.place {
            LockPlace::File(path) => path.display().to_string(),
            LockPlace::StoreKey(key) => key.clone(),
        }
    }

    pub(crate) fn holder(&self) -> HolderState {
        let same_host = self.pid != 0 && self.hostname == host_name();
        let alive = same_host && process_alive(self.pid);
        let facts = HolderFacts {
            same_host,
            alive,
            started: if alive { process_start_time(self.pid) } else { None },
            locked: lock_time(&self.timestamp),
            may_live_elsewhere: same_host && !alive && pid_may_live_elsewhere(self.pid),
        };
        match holder_verdict(&facts) {
            Verdict::Gone => return HolderState::Gone,
            Verdict::Unknown => return HolderState::Unknown,
            Verdict::Writer => {}
        }
        let command = std::fs::read(format!("/proc/{}/cmdline", self.pid))
            .map(|bytes| {
                bytes
                    .split(|byte| *byte == 0)
                    .map(String::from_utf8_lossy)
                    .collect::<Vec<_>>()
                    .join(" ")
                    .trim()
                    .to_string()
            })
            .unwrap_or_default();
        if runner_of(self.pid).is_some_and(|runner| !runner.is_running()) {
            HolderState::Orphan { command }
        } else {
            HolderState::Live { command }
        }
    }

    /// Stops an orphaned holder the way a cancel would (SIGINT, so it may release the lock
    /// itself), then SIGKILL; true once it is gone.
    pub(crate) fn stop_orphan(&self) -> bool {
        let Ok(pid) = i32::try_from(self.pid) else { return false };
        for (signal, wait) in [(libc::SIGINT, Duration::from_secs(10)), (libc::SIGKILL, Duration::from_secs(5))] {
            // The runner starts each `pulumi` as its process group's leader.
            crate::cancel::signal_group(pid, signal);
            crate::cancel::signal_process(pid, signal);
            let deadline = Instant::now() + wait;
            while process_alive(self.pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            if !process_alive(self.pid) {
                return true;
            }
        }
        false
    }
}

/// What this host says of a lock's holder when the lock is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
struct HolderFacts {
    /// The lock is readable and names this host.
    same_host: bool,
    /// Its pid names a running process here (a zombie is not running).
    alive: bool,
    /// When the process its pid names now started, seconds since the epoch.
    started: Option<f64>,
    /// The lock's stamp, seconds since the epoch.
    locked: Option<f64>,
    /// A dead pid that a process of another pid namespace under this host's name may hold.
    may_live_elsewhere: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The process that wrote the lock is gone.
    Gone,
    /// The process its pid names is the one that wrote it (or may be).
    Writer,
    /// Nothing here can tell.
    Unknown,
}

/// Pulumi stamps a lock in whole seconds after its process started; a process that started
/// more than this after the stamp cannot have written it.
const STAMP_SLACK: f64 = 2.0;

/// The one rule: a lock's holder is gone only when the process that wrote it is gone. Same
/// host, and its pid is dead (and cannot be a container's process under the same host name), or
/// alive but a process that started after the lock was written (the pid came back).
fn holder_verdict(facts: &HolderFacts) -> Verdict {
    if !facts.same_host {
        return Verdict::Unknown;
    }
    if !facts.alive {
        return if facts.may_live_elsewhere { Verdict::Unknown } else { Verdict::Gone };
    }
    match (facts.started, facts.locked) {
        (Some(started), Some(locked)) if started > locked + STAMP_SLACK => Verdict::Gone,
        _ => Verdict::Writer,
    }
}

/// The runner that started `pid`, from the mark it put in the environment.
fn runner_of(pid: u32) -> Option<ProcessIdentity> {
    let environment = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARKER_VARIABLE}=");
    environment.split(|byte| *byte == 0).find_map(|variable| {
        let mark = std::str::from_utf8(variable).ok()?.strip_prefix(&prefix)?;
        ProcessMark::runner_of(mark)
    })
}

/// What a backend says about a stack's locks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LockListing {
    Read(Vec<PulumiLock>),
    /// The backend keeps its locks where the runner does not read them (the Pulumi Cloud
    /// service refuses a second update itself).
    NotKept,
    /// Locks exist there but cannot be read (no credentials the runner reads, an unknown
    /// scheme, or the store failed): their holders are unknown, never gone.
    Unreadable(String),
}

/// Reads and removes the Pulumi locks of a backend, with the environment the runner's children get.
pub(crate) struct PulumiLocks<'a> {
    pub backend: &'a Backend,
    pub environment: &'a ChildEnvironment,
}

impl<'a> PulumiLocks<'a> {
    /// Knowing only what this host's processes say.
    pub(crate) fn new(backend: &'a Backend, environment: &'a ChildEnvironment) -> Self {
        Self { backend, environment }
    }

    /// Who holds `lock`, judged once for every caller from this host's processes now (an ended
    /// run's record proves nothing: its pid may have been given to a new `pulumi`); an orphaned
    /// `pulumi` is stopped first when `stop_orphans` (then gone if it stopped).
    pub(crate) fn judge(&self, lock: &PulumiLock, stop_orphans: bool) -> HolderState {
        let state = lock.holder();
        if stop_orphans && matches!(state, HolderState::Orphan { .. }) && lock.stop_orphan() {
            return HolderState::Gone;
        }
        state
    }
}

/// Seconds since the epoch of Pulumi's RFC 3339 lock stamp.
fn lock_time(stamp: &str) -> Option<f64> {
    let time = time::OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339).ok()?;
    Some(time.unix_timestamp_nanos() as f64 / 1e9)
}

impl PulumiLocks<'_> {
    pub(crate) fn read(&self, project_name: &str, stack: &str) -> LockListing {
        let organization = self.backend.organization();
        let folders = [
            format!(".pulumi/locks/{organization}/{project_name}/{stack}/"),
            format!(".pulumi/locks/{project_name}/{stack}/"),
        ];
        if self.backend.is_local() {
            return LockListing::Read(
                self.backend
                    .lock_files(project_name, stack)
                    .into_iter()
                    .filter(|file| file.extension().is_some_and(|ext| ext == "json"))
                    .map(|file| {
                        let content = std::fs::read(&file).ok();
                        parsed(LockPlace::File(file), content.as_deref())
                    })
                    .collect(),
            );
        }
        let client = match open_object_store(&self.backend.url, self.environment) {
            Some(Ok(client)) => client,
            Some(Err(err)) => {
                let reason = crate::error::ErrorChain(&err);
                return LockListing::Unreadable(format!("`{}`: {reason}", shown_url(&self.backend.url)));
            }
            None if self.backend.url.starts_with("http://") || self.backend.url.starts_with("https://") => {
                return LockListing::NotKept
            }
            None => {
                let scheme = self.backend.url.split("://").next().unwrap_or_default();
                return LockListing::Unreadable(format!(
                    "`{}`: the runner cannot read locks on `{scheme}://` backends",
                    shown_url(&self.backend.url)
                ));
            }
        };
        let mut locks = Vec::new();
        for folder in folders {
            let keys = match client.list(&format!("{}{folder}", client.prefix())) {
                Ok(keys) => keys,
                Err(err) => return LockListing::Unreadable(crate::error::ErrorChain(&err).to_string()),
            };
            for key in keys.into_iter().filter(|key| key.ends_with(".json")) {
                match client.get(&key) {
                    Ok(content) => locks.push(parsed(LockPlace::StoreKey(key), Some(&content))),
                    // A lock released between the list and the get is simply not there any more.
                    Err(err) if err.is_not_found() => {}
                    // There but unreadable: a lock whose holder is unknown, never no lock.
                    Err(_) => locks.push(parsed(LockPlace::StoreKey(key), None)),
                }
            }
        }
        LockListing::Read(locks)
    }

    pub(crate) fn remove(&self, lock: &PulumiLock) -> Result<(), super::LockRemovalError> {
        match &lock.place {
            LockPlace::File(file) => {
                match std::fs::remove_file(file) {
                    Ok(()) => {}
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                    Err(err) => return Err(super::LockRemovalError::File(file.clone(), err)),
                }
                let _ = std::fs::remove_file(file.with_extension("json.attrs"));
                Ok(())
            }
            LockPlace::StoreKey(key) => {
                let store = |source| super::LockRemovalError::Store { url: shown_url(&self.backend.url), source };
                match open_object_store(&self.backend.url, self.environment) {
                    // Released by its holder since it was read: nothing is left to remove.
                    Some(Ok(client)) => match client.delete(key) {
                        Err(err) if !err.is_not_found() => Err(store(err)),
                        _ => Ok(()),
                    },
                    Some(Err(err)) => Err(store(err)),
                    None => Err(super::LockRemovalError::NotObjectStore(shown_url(&self.backend.url))),
                }
            }
        }
    }
}

fn parsed(place: LockPlace, content: Option<&[u8]>) -> PulumiLock {
    let content: LockContent = content.and_then(|bytes| serde_json::from_slice(bytes).ok()).unwrap_or_default();
    PulumiLock {
        place,
        pid: content.pid,
        username: content.username,
        hostname: content.hostname,
        timestamp: content.timestamp,
    }
}

#[cfg(test)]
#[path = "pulumi_lock_tests.rs"]
mod tests;
