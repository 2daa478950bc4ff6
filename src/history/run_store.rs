use std::path::{Path, PathBuf};

use super::{RunRecord, RunState};
use crate::config::write_atomically;
use crate::error::{Result, UserError};

/// `.runner/history/`: one JSON file per run, replaced atomically on every change, so a crash
/// leaves either the previous or the next complete version, never half a file.
#[derive(Debug, Clone)]
pub struct RunStore {
    dir: PathBuf,
}

impl RunStore {
    pub fn new(state_dir: &Path) -> Self {
        Self { dir: state_dir.join("history") }
    }

    pub fn save(&self, record: &RunRecord) -> Result<()> {
        let mut json = serde_json::to_vec_pretty(record).map_err(|err| UserError::Internal(err.to_string()))?;
        json.push(b'\n');
        write_atomically(&self.dir.join(format!("{}.json", record.run_id)), &json)
    }

    /// Every readable run, oldest first. Unreadable files are skipped: history is advisory.
    pub fn runs(&self) -> Vec<RunRecord> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut runs: Vec<RunRecord> = entries
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .filter_map(|path| std::fs::read(&path).ok())
            .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
            .collect();
        runs.sort_by(|a, b| a.started.total_cmp(&b.started).then_with(|| a.run_id.cmp(&b.run_id)));
        runs
    }

    /// One run by id.
    pub fn run(&self, run_id: &str) -> Option<RunRecord> {
        let bytes = std::fs::read(self.dir.join(format!("{run_id}.json"))).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn runs_of(&self, provider: &str, stack: &str) -> Vec<RunRecord> {
        self.runs().into_iter().filter(|run| run.stack == stack && run.provider == provider).collect()
    }

    /// Runs still marked running whose runner is gone (killed, crashed, machine restarted).
    /// They are marked interrupted, and returned so the user is told.
    pub fn settle_abandoned(&self, provider: &str, stack: &str) -> Vec<RunRecord> {
        let host = super::stack_lock::host_name();
        let mut abandoned = Vec::new();
        for mut run in self.runs_of(provider, stack) {
            if run.state == RunState::Running && run.host == host && !super::stack_lock::process_alive(run.pid) {
                run.state = RunState::Interrupted;
                for project in run.projects.iter_mut().filter(|p| p.result == "running") {
                    project.result = "cancelled".into();
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
