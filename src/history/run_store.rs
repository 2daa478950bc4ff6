use std::path::{Path, PathBuf};

use super::{ProjectState, RunRecord, RunState, SuccessIndex};
use crate::config::write_atomically;
use crate::error::{Result, UserError};

/// `.runner/history/`: one JSON file per run, replaced atomically on every change, so a crash
/// leaves either the previous or the next complete version, never half a file.
#[derive(Debug, Clone)]
pub(crate) struct RunStore {
    dir: PathBuf,
    /// `.runner/last-success/`: the success index, one file per stack.
    index_dir: PathBuf,
}

impl RunStore {
    pub(crate) fn new(state_dir: &Path) -> Self {
        Self { dir: state_dir.join("history"), index_dir: state_dir.join("last-success") }
    }

    pub(crate) fn save(&self, record: &RunRecord) -> Result<()> {
        let mut json = serde_json::to_vec_pretty(record).map_err(|err| UserError::Internal(err.to_string()))?;
        json.push(b'\n');
        write_atomically(&self.dir.join(format!("{}.json", record.run_id)), &json)
    }

    /// Every readable run, oldest first. Unreadable files are skipped with a warning (once per
    /// file): `--resume` must not silently pick an older run.
    pub(crate) fn runs(&self) -> Vec<RunRecord> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut runs: Vec<RunRecord> = entries
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .filter_map(|path| match std::fs::read(&path).map(|bytes| serde_json::from_slice::<RunRecord>(&bytes)) {
                Ok(Ok(run)) => Some(run),
                Ok(Err(err)) => {
                    warn_unreadable(&path, &err.to_string());
                    None
                }
                Err(err) => {
                    warn_unreadable(&path, &err.to_string());
                    None
                }
            })
            .collect();
        runs.sort_by(|a, b| a.started.total_cmp(&b.started).then_with(|| a.run_id.cmp(&b.run_id)));
        runs
    }

    /// When each project of `stack` last succeeded. Histories from before the index existed get
    /// one, built once from their records.
    pub(crate) fn success_index(&self, stack: &str) -> SuccessIndex {
        if let Some(index) = SuccessIndex::load(&self.index_dir, stack) {
            return index;
        }
        let index = SuccessIndex::from_runs(self.runs().iter().filter(|run| run.stack == stack));
        // Advisory: without the file, the next run builds it again.
        let _ = index.save(&self.index_dir, stack);
        index
    }

    pub(crate) fn save_success_index(&self, stack: &str, index: &SuccessIndex) -> Result<()> {
        index.save(&self.index_dir, stack)
    }

    /// Deletes the oldest records of a provider's stack beyond the newest `keep` (runs still
    /// running are never deleted). Their successes stay in the success index. Returns how many went.
    pub(crate) fn prune(&self, provider: &str, stack: &str, keep: usize) -> usize {
        let runs = self.runs_of(provider, stack);
        let excess = runs.len().saturating_sub(keep);
        runs.iter()
            .take(excess)
            .filter(|run| run.state != RunState::Running)
            .filter(|run| std::fs::remove_file(self.dir.join(format!("{}.json", run.run_id))).is_ok())
            .count()
    }

    /// One run by id.
    pub(crate) fn run(&self, run_id: &str) -> Option<RunRecord> {
        let bytes = std::fs::read(self.dir.join(format!("{run_id}.json"))).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub(crate) fn runs_of(&self, provider: &str, stack: &str) -> Vec<RunRecord> {
        self.runs().into_iter().filter(|run| run.stack == stack && run.provider == provider).collect()
    }

    /// Runs still marked running whose runner is gone (killed, crashed, machine restarted).
    /// They are marked interrupted, and returned so the user is told.
    pub(crate) fn settle_abandoned(&self, provider: &str, stack: &str) -> Vec<RunRecord> {
        let mut abandoned = Vec::new();
        for mut run in self.runs_of(provider, stack) {
            if run.abandoned() {
                run.state = RunState::Interrupted;
                for project in run.projects.iter_mut().filter(|p| p.result == ProjectState::Running) {
                    project.result = ProjectState::Cancelled;
                    project.reason = Some("the runner stopped while it ran".into());
                }
                if self.save(&run).is_ok() {
                    abandoned.push(run);
                }
            }
        }
        abandoned
    }
}

fn warn_unreadable(path: &Path, reason: &str) {
    static WARNED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::OnceLock::new();
    let mut warned = WARNED.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if warned.insert(path.to_path_buf()) {
        crate::text::stderr_line!(
            "warning: skipped the unreadable run record `{}` ({reason}); move it away to silence this",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::plan::Operation;
    use crate::provider::ProjectPath;

    /// A record as runner wrote it before the history was typed: the names must still load.
    fn record(run_id: &str, started: f64, state: &str, results: &[(&str, &str, Option<&str>)]) -> String {
        let projects: Vec<String> = results
            .iter()
            .map(|(project, result, operation)| {
                let operation = operation.map(|op| format!(r#", "operation": "{op}""#)).unwrap_or_default();
                format!(
                    r#"{{"project": "{project}", "result": "{result}", "attempts": 1, "started": {started},
                    "ended": {}, "changes": {{"created": 1, "updated": 0, "deleted": 0, "replaced": 0,
                    "unchanged": 0}}, "reason": null, "retries": []{operation}}}"#,
                    started + 1.0
                )
            })
            .collect();
        format!(
            r#"{{"run_id": "{run_id}", "provider": "aws", "stack": "dev", "operation": "refresh", "state": "{state}",
            "pid": 1, "host": "h", "started": {started}, "ended": null, "projects": [{}]}}"#,
            projects.join(",")
        )
    }

    fn store_with(records: &[String]) -> (tempfile::TempDir, RunStore) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("history")).unwrap();
        for (i, text) in records.iter().enumerate() {
            std::fs::write(dir.path().join(format!("history/run-{i}.json")), text).unwrap();
        }
        let store = RunStore::new(dir.path());
        (dir, store)
    }

    #[test]
    fn records_written_before_the_typed_history_still_load() {
        let (_dir, store) = store_with(&[record(
            "run-0",
            100.0,
            "finished",
            &[("vpc", "succeeded", None), ("creds", "succeeded", Some("up")), ("eks", "cancelled", None)],
        )]);
        let runs = store.runs();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].operation, Operation::Refresh);
        assert_eq!(runs[0].state, RunState::Finished);
        assert_eq!(runs[0].projects[1].operation, Some(Operation::Up));
        assert_eq!(runs[0].unfinished(), ["eks"]);
        let saved = serde_json::to_value(&runs[0]).unwrap();
        assert_eq!(saved["operation"], "refresh");
        assert_eq!(saved["projects"][2]["result"], "cancelled");
    }

    #[test]
    fn the_success_index_is_built_once_from_old_records_then_read_alone() {
        let (dir, store) = store_with(&[
            record("run-0", 100.0, "finished", &[("creds", "succeeded", Some("up")), ("vpc", "succeeded", None)]),
            record("run-1", 200.0, "finished", &[("creds", "failed", Some("up"))]),
        ]);
        let index = store.success_index("dev").of_stack("aws", "dev");
        let at = |seconds: f64| Some(UNIX_EPOCH + Duration::from_secs_f64(seconds));
        assert_eq!(index.last_success(&ProjectPath::new("creds"), Operation::Up), at(101.0));
        assert_eq!(index.last_success(&ProjectPath::new("vpc"), Operation::Refresh), at(101.0));
        assert_eq!(index.last_success(&ProjectPath::new("vpc"), Operation::Up), None);
        // From now on the records are not read for it: removing them changes nothing.
        for run in ["run-0", "run-1"] {
            std::fs::remove_file(dir.path().join(format!("history/{run}.json"))).unwrap();
        }
        assert!(store.runs().is_empty());
        let index = store.success_index("dev").of_stack("aws", "dev");
        assert_eq!(index.last_success(&ProjectPath::new("creds"), Operation::Up), at(101.0));
        assert_eq!(store.success_index("prod"), SuccessIndex::default());
    }

    #[test]
    fn pruning_keeps_the_newest_runs_and_every_running_one() {
        let (_dir, store) = store_with(&[
            record("run-0", 100.0, "running", &[]),
            record("run-1", 200.0, "finished", &[("vpc", "succeeded", None)]),
            record("run-2", 300.0, "interrupted", &[]),
            record("run-3", 400.0, "finished", &[]),
        ]);
        let index_before = store.success_index("dev");
        assert_eq!(store.prune("aws", "dev", 1), 2);
        let left: Vec<String> = store.runs().into_iter().map(|run| run.run_id).collect();
        assert_eq!(left, ["run-0", "run-3"]);
        assert_eq!(store.success_index("dev"), index_before, "pruned successes stay in the index");
    }
}
