//! Pulumi's own stack locks on a file backend, and whether the process holding one is gone.

use std::path::PathBuf;

use serde::Deserialize;

use crate::pulumi::Backend;

/// A lock file (`.pulumi/locks/<org>/<project>/<stack>/<id>.json`) as the real CLI writes it:
/// `{"pid":20701,"username":"root","hostname":"vm","timestamp":"2026-11-22T22:05:19Z"}`.
#[derive(Debug, Clone, Deserialize)]
struct LockContent {
    pid: u32,
    #[serde(default)]
    hostname: String,
    #[serde(default)]
    timestamp: String,
}

/// A Pulumi lock whose holder was a process on this host that no longer exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbandonedLock {
    pub file: PathBuf,
    pub pid: u32,
    pub timestamp: String,
}

/// The locks of `project_name`'s `stack` left by a `pulumi` that died on this host. Locks of
/// other hosts or of living processes are never called abandoned: only their holder knows.
pub fn abandoned_pulumi_locks(backend: &Backend, project_name: &str, stack: &str) -> Vec<AbandonedLock> {
    let host = crate::history::host_name();
    backend
        .lock_files(project_name, stack)
        .into_iter()
        .filter(|file| file.extension().is_some_and(|ext| ext == "json"))
        .filter_map(|file| {
            let content: LockContent = serde_json::from_slice(&std::fs::read(&file).ok()?).ok()?;
            let gone = content.hostname == host && !crate::history::process_alive(content.pid);
            gone.then_some(AbandonedLock { file, pid: content.pid, timestamp: content.timestamp })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pulumi::ChildEnvironment;

    fn backend(dir: &std::path::Path) -> Backend {
        let process = [("PULUMI_BACKEND_URL".to_string(), format!("file://{}", dir.display()))];
        let root = crate::config::RepositoryRoot::unchecked(dir);
        Backend::from_environment(&ChildEnvironment::build(process, &Default::default(), &root))
    }

    fn lock(dir: &std::path::Path, name: &str, pid: u32, host: &str) {
        let locks = dir.join(".pulumi/locks/organization/net/dev");
        std::fs::create_dir_all(&locks).unwrap();
        std::fs::write(
            locks.join(format!("{name}.json")),
            format!(
                r#"{{"pid":{pid},"username":"root","hostname":"{host}","timestamp":"2026-11-22T22:05:19.084079027Z"}}"#
            ),
        )
        .unwrap();
        std::fs::write(locks.join(format!("{name}.json.attrs")), "{}").unwrap();
    }

    #[test]
    fn only_locks_of_dead_local_holders_are_abandoned() {
        let dir = tempfile::tempdir().unwrap();
        let host = crate::history::host_name();
        lock(dir.path(), "dead", 999_999_999, &host);
        lock(dir.path(), "alive", std::process::id(), &host);
        lock(dir.path(), "remote", 999_999_999, "another-host");
        let found = abandoned_pulumi_locks(&backend(dir.path()), "net", "dev");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].file.ends_with("dead.json"));
    }
}
