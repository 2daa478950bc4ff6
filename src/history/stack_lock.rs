use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::cancel::{recorded_process_runs, ProcessIdentity};
use crate::error::{Result, UserError};

/// Who holds a stack: enough for a person to find the other runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LockHolder {
    pub pid: u32,
    /// The clock tick the runner started at: with the pid, its identity. Absent in locks of
    /// runners older than identities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ticks: Option<u64>,
    pub host: String,
    pub started: u64,
    pub command: String,
}

impl LockHolder {
    /// Whether the runner that wrote the lock runs: a process that got its pid since does not count.
    pub(crate) fn runs(&self) -> bool {
        recorded_process_runs(self.pid, self.start_ticks)
    }

    pub(crate) fn describe(&self) -> String {
        let started = humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(self.started));
        format!("pid {} on `{}` since {started} (`{}`)", self.pid, self.host, self.command)
    }
}

/// One runner per repository and stack: `.runner/locks/<stack>.lock`, created exclusively and
/// removed on drop. A lock whose process is gone is stale and taken over.
#[derive(Debug)]
pub(crate) struct StackLock {
    path: PathBuf,
    /// Set when this lock replaced one left by a runner that no longer runs.
    pub replaced_stale: Option<LockHolder>,
}

const WAIT_INTERVAL: Duration = Duration::from_millis(500);

impl StackLock {
    pub(crate) fn acquire(state_dir: &Path, stack: &str, command: &str, wait: bool) -> Result<Self> {
        let dir = state_dir.join("locks");
        std::fs::create_dir_all(&dir).map_err(|err| UserError::Unwritable { path: dir.clone(), source: err })?;
        let path = dir.join(format!("{stack}.lock"));
        let identity = ProcessIdentity::current();
        let me = LockHolder {
            pid: identity.pid,
            start_ticks: Some(identity.start_ticks),
            host: host_name(),
            started: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default(),
            command: command.to_string(),
        };
        let mut replaced_stale = None;
        // The lock appears with its holder already in it: written beside it, then linked into
        // place (which fails if a lock exists). A runner killed between creating a file and
        // writing it left an empty lock that the next run could only call "an unknown runner".
        // Not flushed to disk: the lock only excludes runners alive on this machine, which read
        // it from the page cache.
        let draft = dir.join(format!(".{stack}.lock.{}", me.pid));
        let json = serde_json::to_vec(&me).map_err(|err| UserError::Internal(err.to_string()))?;
        std::fs::File::create(&draft)
            .and_then(|mut file| file.write_all(&json))
            .map_err(|err| UserError::Unwritable { path: draft.clone(), source: err })?;
        let _draft = RemoveOnDrop(draft.clone());
        remove_drafts_of_gone_runners(&dir, stack);
        loop {
            match place(&draft, &path, &json) {
                Ok(()) => return Ok(Self { path, replaced_stale }),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder =
                        std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice::<LockHolder>(&bytes).ok());
                    match holder {
                        Some(holder) if holder.host == me.host && !holder.runs() => {
                            // Two runners may both see the stale lock: only one removes it, and
                            // only while it is still that stale lock, never the other's new one.
                            if remove_if_still(&dir, &path, &holder) {
                                replaced_stale = Some(holder);
                            }
                        }
                        None if lock_is_old(&path) => {
                            // Unreadable and not just being written: left by a crash mid-write.
                            let _ = std::fs::remove_file(&path);
                        }
                        Some(holder) if !wait => {
                            return Err(UserError::StackBusy {
                                stack: stack.to_string(),
                                holder: holder.describe(),
                                lock: path,
                            })
                        }
                        None if !wait => {
                            return Err(UserError::StackBusy {
                                stack: stack.to_string(),
                                holder: "an unknown runner".into(),
                                lock: path,
                            })
                        }
                        _ => std::thread::sleep(WAIT_INTERVAL),
                    }
                }
                Err(err) => return Err(UserError::Unwritable { path, source: err }),
            }
        }
    }
}

/// Links the written `draft` into place as `path`, failing with `AlreadyExists` when a lock is
/// there; on a filesystem without hard links, creates `path` and writes it.
fn place(draft: &Path, path: &Path, json: &[u8]) -> std::io::Result<()> {
    match std::fs::hard_link(draft, path) {
        Err(err) if matches!(err.kind(), std::io::ErrorKind::Unsupported | std::io::ErrorKind::PermissionDenied) => {
            std::fs::OpenOptions::new().write(true).create_new(true).open(path)?.write_all(json)
        }
        other => other,
    }
}

/// Removes a file when dropped: the lock's draft, whatever way `acquire` returns.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Drafts `.<stack>.lock.<pid>` left by runners killed before they linked theirs.
fn remove_drafts_of_gone_runners(dir: &Path, stack: &str) {
    let prefix = format!(".{stack}.lock.");
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|name| name.strip_prefix(&prefix)).and_then(|pid| pid.parse().ok())
        else {
            continue;
        };
        if !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

impl Drop for StackLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes `path` if it still names `stale`, under an exclusive `flock` on `.takeover` in `dir`.
fn remove_if_still(dir: &Path, path: &Path, stale: &LockHolder) -> bool {
    let Ok(guard) = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".takeover"))
    else {
        return false;
    };
    if rustix::fs::flock(&guard, rustix::fs::FlockOperation::LockExclusive).is_err() {
        return false;
    }
    let current = std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice::<LockHolder>(&bytes).ok());
    // The flock is released when `guard` is dropped.
    current.as_ref() == Some(stale) && std::fs::remove_file(path).is_ok()
}

fn lock_is_old(path: &Path) -> bool {
    std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok())
        .is_some_and(|age| age > Duration::from_secs(5))
}

pub(crate) fn host_name() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

use crate::cancel::process_alive;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_takeovers_of_a_stale_lock_leave_exactly_one_holder() {
        let dir = tempfile::tempdir().unwrap();
        let locks = dir.path().join("locks");
        std::fs::create_dir_all(&locks).unwrap();
        let stale = LockHolder {
            pid: 999_999_999,
            start_ticks: Some(5),
            host: host_name(),
            started: 1,
            command: "runner up".into(),
        };
        for _ in 0..20 {
            std::fs::write(locks.join("dev.lock"), serde_json::to_vec(&stale).unwrap()).unwrap();
            let state_dir = dir.path().to_path_buf();
            let racers: Vec<_> = (0..4)
                .map(|_| {
                    let state_dir = state_dir.clone();
                    std::thread::spawn(move || StackLock::acquire(&state_dir, "dev", "runner up", false))
                })
                .collect();
            let results: Vec<_> = racers.into_iter().map(|racer| racer.join().unwrap()).collect();
            assert_eq!(results.iter().filter(|result| result.is_ok()).count(), 1, "exactly one takes over");
        }
    }

    #[test]
    fn second_lock_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let _held = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap();
        let err = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap_err().to_string();
        assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
        assert!(StackLock::acquire(dir.path(), "prod", "runner up", false).is_ok(), "other stacks are free");
    }

    #[test]
    fn a_lock_of_a_dead_process_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("locks")).unwrap();
        let dead = LockHolder {
            pid: i32::MAX as u32 - 7,
            start_ticks: None,
            host: host_name(),
            started: 0,
            command: "runner up".into(),
        };
        std::fs::write(dir.path().join("locks/dev.lock"), serde_json::to_vec(&dead).unwrap()).unwrap();
        let lock = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap();
        assert_eq!(lock.replaced_stale, Some(dead));
    }

    #[test]
    fn a_lock_whose_pid_came_back_is_stale_and_a_live_holder_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("locks")).unwrap();
        let me = ProcessIdentity::current();
        let holder = |start_ticks| LockHolder {
            pid: me.pid,
            start_ticks,
            host: host_name(),
            started: 0,
            command: "runner up".into(),
        };
        // This process runs, but a runner started at another tick wrote the lock: it is gone.
        let gone = holder(Some(me.start_ticks + 1));
        std::fs::write(dir.path().join("locks/dev.lock"), serde_json::to_vec(&gone).unwrap()).unwrap();
        let lock = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap();
        assert_eq!(lock.replaced_stale, Some(gone));
        drop(lock);
        // The same pid and tick, or a lock of the older form without a tick: held.
        for live in [holder(Some(me.start_ticks)), holder(None)] {
            std::fs::write(dir.path().join("locks/dev.lock"), serde_json::to_vec(&live).unwrap()).unwrap();
            let err = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap_err();
            assert!(matches!(err, UserError::StackBusy { .. }), "{err}");
        }
    }

    #[test]
    fn dropping_releases() {
        let dir = tempfile::tempdir().unwrap();
        drop(StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap());
        assert!(StackLock::acquire(dir.path(), "dev", "runner up", false).is_ok());
    }

    #[test]
    fn a_lock_appears_with_its_holder_and_drafts_of_gone_runners_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let locks = dir.path().join("locks");
        std::fs::create_dir_all(&locks).unwrap();
        std::fs::write(locks.join(".dev.lock.999999999"), "{}").unwrap();
        let lock = StackLock::acquire(dir.path(), "dev", "runner up", false).unwrap();
        let holder: LockHolder = serde_json::from_slice(&std::fs::read(locks.join("dev.lock")).unwrap()).unwrap();
        assert_eq!(holder.pid, std::process::id());
        let left: Vec<_> = std::fs::read_dir(&locks).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, [std::ffi::OsString::from("dev.lock")], "drafts are gone, the lock is all");
        drop(lock);
    }
}
