use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{ProjectState, RunRecord};
use crate::plan::Operation;
use crate::provider::ProjectPath;

/// When each project last succeeded, per operation, on one stack: what prerequisites ask.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuccessIndex {
    last: HashMap<(String, Operation), SystemTime>,
}

impl SuccessIndex {
    /// Builds it from whole run records (oldest first or in any order).
    pub fn from_runs<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Self {
        let mut index = Self::default();
        for run in runs {
            for record in &run.projects {
                if let (ProjectState::Succeeded, Some(ended)) = (record.result, record.ended) {
                    let at = UNIX_EPOCH + Duration::from_secs_f64(ended.max(0.0));
                    index.record(&record.project, run.operation_of(record), at);
                }
            }
        }
        index
    }

    pub fn record(&mut self, project: &str, operation: Operation, at: SystemTime) {
        let entry = self.last.entry((project.to_string(), operation)).or_insert(at);
        *entry = (*entry).max(at);
    }

    pub fn last_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime> {
        self.last.get(&(project.as_str().to_string(), operation)).copied()
    }
}
