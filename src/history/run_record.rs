use serde::{Deserialize, Serialize};

use crate::pulumi::ResourceChanges;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Running,
    Finished,
    Interrupted,
}

/// One project operation of a run, as the history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectRecord {
    pub project: String,
    /// `running` until it ends; then `succeeded`, `failed`, `skipped` or `cancelled`.
    pub result: String,
    pub attempts: u32,
    pub started: Option<f64>,
    pub ended: Option<f64>,
    #[serde(default)]
    pub changes: ResourceChangesRecord,
    pub reason: Option<String>,
    /// Why each earlier attempt failed, when the operation was retried.
    #[serde(default)]
    pub retries: Vec<String>,
    /// Set when it differs from the run's operation (a prerequisite's `up`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// A `drift` run's drifted resources: `update tokenauth:index:File edited`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drifted: Vec<String>,
}

impl ProjectRecord {
    /// A planned project that has not started, or a prerequisite about to run (`operation`).
    pub fn pending(project: String, operation: Option<String>) -> Self {
        Self {
            project,
            result: "pending".into(),
            attempts: 0,
            started: None,
            ended: None,
            changes: ResourceChangesRecord::default(),
            reason: None,
            retries: Vec::new(),
            operation,
            drifted: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceChangesRecord {
    pub created: u64,
    pub updated: u64,
    pub deleted: u64,
    pub replaced: u64,
    pub unchanged: u64,
}

impl From<ResourceChanges> for ResourceChangesRecord {
    fn from(changes: ResourceChanges) -> Self {
        Self {
            created: changes.created,
            updated: changes.updated,
            deleted: changes.deleted,
            replaced: changes.replaced,
            unchanged: changes.unchanged,
        }
    }
}

/// Everything the history knows about one run; rewritten whole, atomically, as it progresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub run_id: String,
    pub provider: String,
    pub stack: String,
    pub operation: String,
    pub state: RunState,
    pub pid: u32,
    pub host: String,
    pub started: f64,
    pub ended: Option<f64>,
    /// Every planned project in start order; results fill in as they end.
    pub projects: Vec<ProjectRecord>,
}

impl RunRecord {
    pub fn project(&self, path: &str) -> Option<&ProjectRecord> {
        self.projects.iter().find(|record| record.project == path)
    }

    /// Projects that did not succeed (or never ended): what `--resume` runs again.
    pub fn unfinished(&self) -> Vec<&str> {
        self.projects
            .iter()
            .filter(|record| record.result != "succeeded")
            .map(|record| record.project.as_str())
            .collect()
    }
}
