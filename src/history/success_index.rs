use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{ProjectState, RunRecord};
use crate::config::write_atomically;
use crate::error::UserError;
use crate::plan::Operation;
use crate::provider::ProjectPath;

/// `.runner/last-success/<stack>.json`: when each project last succeeded on a stack, per
/// provider and operation. Prerequisites read it instead of every run record, and it outlives
/// pruned records. One file per stack, so it is only written under that stack's lock.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SuccessIndex {
    entries: Vec<LastSuccess>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct LastSuccess {
    provider: String,
    stack: String,
    project: String,
    operation: Operation,
    /// Seconds since the epoch, like the run records.
    ended: f64,
}

fn index_file(index_dir: &Path, stack: &str) -> PathBuf {
    index_dir.join(format!("{stack}.json"))
}

impl SuccessIndex {
    /// Reads a stack's index; `None` when there is none (or it is unreadable).
    pub(super) fn load(index_dir: &Path, stack: &str) -> Option<Self> {
        let bytes = std::fs::read(index_file(index_dir, stack)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub(super) fn save(&self, index_dir: &Path, stack: &str) -> crate::error::Result<()> {
        let mut json = serde_json::to_vec_pretty(self).map_err(|err| UserError::Internal(err.to_string()))?;
        json.push(b'\n');
        write_atomically(&index_file(index_dir, stack), &json)
    }

    /// Builds it from whole run records, for histories written before the index existed.
    pub(crate) fn from_runs<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Self {
        let mut index = Self::default();
        for run in runs {
            index.add_run(run);
        }
        index
    }

    /// Takes in every success of `run`.
    pub(crate) fn add_run(&mut self, run: &RunRecord) {
        for record in &run.projects {
            if let (ProjectState::Succeeded, Some(ended)) = (record.result, record.ended) {
                self.record(&run.provider, &run.stack, &record.project, run.operation_of(record), ended);
            }
        }
    }

    /// Notes a success; an older one than what is known changes nothing. Returns whether it changed.
    pub(crate) fn record(
        &mut self,
        provider: &str,
        stack: &str,
        project: &str,
        operation: Operation,
        ended: f64,
    ) -> bool {
        let same = |entry: &&mut LastSuccess| {
            entry.provider == provider
                && entry.stack == stack
                && entry.project == project
                && entry.operation == operation
        };
        match self.entries.iter_mut().find(same) {
            Some(entry) if entry.ended >= ended => false,
            Some(entry) => {
                entry.ended = ended;
                true
            }
            None => {
                let (provider, stack, project) = (provider.to_string(), stack.to_string(), project.to_string());
                self.entries.push(LastSuccess { provider, stack, project, operation, ended });
                true
            }
        }
    }

    /// The part about one provider's stack.
    pub(crate) fn of_stack(&self, provider: &str, stack: &str) -> StackSuccesses {
        let entries = self.entries.iter().filter(|entry| entry.provider == provider && entry.stack == stack).cloned();
        StackSuccesses { entries: entries.collect() }
    }
}

/// The last successes on one stack, what a run's prerequisites need.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StackSuccesses {
    entries: Vec<LastSuccess>,
}

impl StackSuccesses {
    pub(crate) fn last_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime> {
        self.entries
            .iter()
            .find(|entry| entry.project == project.as_str() && entry.operation == operation)
            .map(|entry| UNIX_EPOCH + Duration::from_secs_f64(entry.ended.max(0.0)))
    }
}
