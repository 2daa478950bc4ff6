use serde::{Deserialize, Serialize};

use crate::execute::{ProjectResult, ResourceChanges};
use crate::plan::Operation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Running,
    Finished,
    Interrupted,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where one project of a run stands; the JSON names are the history's on-disk format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectState {
    Pending,
    Running,
    Succeeded,
    Failed,
    Skipped,
    Cancelled,
    #[serde(rename = "not deployed")]
    NotDeployed,
    /// Skipped because nothing it reads changed: done, never resumed.
    Unchanged,
}

impl ProjectState {
    /// Ended as it should: `--resume` leaves it alone. Agrees with `ProjectResult::is_done`.
    pub fn is_done(self) -> bool {
        matches!(self, ProjectState::Succeeded | ProjectState::Unchanged)
    }

    /// Whether `--resume` runs it again: not when its stack holds nothing, which running the
    /// refresh or drift again would find again.
    pub fn needs_resume(self) -> bool {
        !self.is_done() && self != ProjectState::NotDeployed
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProjectState::Pending => "pending",
            ProjectState::Running => "running",
            ProjectState::Succeeded => "succeeded",
            ProjectState::Failed => "failed",
            ProjectState::Skipped => "skipped",
            ProjectState::Cancelled => "cancelled",
            ProjectState::NotDeployed => "not deployed",
            ProjectState::Unchanged => "unchanged",
        }
    }
}

impl From<ProjectResult> for ProjectState {
    fn from(result: ProjectResult) -> Self {
        match result {
            ProjectResult::Succeeded => ProjectState::Succeeded,
            ProjectResult::Failed => ProjectState::Failed,
            ProjectResult::Skipped => ProjectState::Skipped,
            ProjectResult::Cancelled => ProjectState::Cancelled,
            ProjectResult::NotDeployed => ProjectState::NotDeployed,
            ProjectResult::Unchanged => ProjectState::Unchanged,
        }
    }
}

impl std::fmt::Display for ProjectState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One project operation of a run, as the history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectRecord {
    pub project: String,
    /// `running` until it ends; then `succeeded`, `failed`, `skipped` or `cancelled`.
    pub result: ProjectState,
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
    pub operation: Option<Operation>,
    /// A `drift` run's drifted resources: `update tokenauth:index:File edited`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drifted: Vec<String>,
}

impl ProjectRecord {
    /// A planned project that has not started, or a prerequisite about to run (`operation`).
    pub fn pending(project: String, operation: Option<Operation>) -> Self {
        Self {
            project,
            result: ProjectState::Pending,
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
    pub operation: Operation,
    pub state: RunState,
    pub pid: u32,
    /// The clock tick the runner started at: with the pid, its identity. Absent in records of
    /// runners older than identities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ticks: Option<u64>,
    pub host: String,
    pub started: f64,
    pub ended: Option<f64>,
    /// Every planned project in start order; results fill in as they end.
    pub projects: Vec<ProjectRecord>,
    /// Pulumi locks left by holders that were gone, which this run removed before it started.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recovered_locks: Vec<String>,
    /// Every `pulumi` this run started, on `host`: once the run has ended by itself, none of them
    /// runs any more, so a lock one of them took is provably left behind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pulumi_processes: Vec<RecordedProcess>,
}

/// A `pulumi` process a run started: its pid and when (seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedProcess {
    pub project: String,
    pub pid: u32,
    pub started: f64,
}

impl RunRecord {
    /// Ended by its own runner (`RunFinished`), not settled after the runner vanished: only then
    /// were all its children waited for.
    pub fn ended_by_itself(&self) -> bool {
        self.state != RunState::Running && self.ended.is_some()
    }

    /// Still marked running, but its runner (this host's, by its identity) is gone: killed,
    /// crashed, or the machine restarted. A later process with the runner's pid does not keep
    /// the run alive.
    pub fn abandoned(&self) -> bool {
        self.state == RunState::Running
            && self.host == super::stack_lock::host_name()
            && !crate::cancel::recorded_process_runs(self.pid, self.start_ticks)
    }

    /// The operation `record` ran: its own (a prerequisite's `up`) or the run's.
    pub fn operation_of(&self, record: &ProjectRecord) -> Operation {
        record.operation.unwrap_or(self.operation)
    }

    pub fn project(&self, path: &str) -> Option<&ProjectRecord> {
        self.projects.iter().find(|record| record.project == path)
    }

    /// Projects that did not succeed (or never ended): what `--resume` runs again.
    pub fn unfinished(&self) -> Vec<&str> {
        self.projects
            .iter()
            .filter(|record| record.result != ProjectState::Succeeded)
            .map(|record| record.project.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every result a run can end a project with: `--resume`, the footer's "left to run", the
    /// summary and the history agree on which are done (an `unchanged` project is never pending).
    #[test]
    fn every_result_is_done_in_the_record_exactly_when_it_is_done_in_the_run() {
        for result in ProjectResult::ALL {
            // A new variant must be listed above: this match fails to compile without it.
            match result {
                ProjectResult::Succeeded
                | ProjectResult::Failed
                | ProjectResult::Skipped
                | ProjectResult::Cancelled
                | ProjectResult::NotDeployed
                | ProjectResult::Unchanged => {}
            }
            let state = ProjectState::from(result);
            assert_eq!(state.is_done(), result.is_done(), "{result:?}");
            assert_eq!(state.as_str(), result.as_str());
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(serde_json::from_str::<ProjectState>(&json).unwrap(), state);
        }
        assert!(ProjectResult::Unchanged.is_done() && ProjectResult::Unchanged.lets_dependents_run());
    }

    /// A run still marked running is abandoned once its runner is gone from this host, judged by
    /// the runner's identity: a live process that got its pid does not keep it running.
    #[test]
    fn a_running_run_is_abandoned_exactly_when_its_runner_is_gone() {
        let me = crate::cancel::ProcessIdentity::current();
        let run = |state, pid, start_ticks, host: &str| RunRecord {
            run_id: "r".into(),
            provider: "local".into(),
            stack: "dev".into(),
            operation: crate::plan::Operation::Up,
            state,
            pid,
            start_ticks,
            host: host.into(),
            started: 0.0,
            ended: None,
            projects: Vec::new(),
            recovered_locks: Vec::new(),
            pulumi_processes: Vec::new(),
        };
        let here = super::super::stack_lock::host_name();
        assert!(!run(RunState::Running, me.pid, Some(me.start_ticks), &here).abandoned(), "its runner runs");
        assert!(!run(RunState::Running, me.pid, None, &here).abandoned(), "an old record, its pid alive");
        assert!(run(RunState::Running, me.pid, Some(me.start_ticks + 1), &here).abandoned(), "the pid came back");
        assert!(run(RunState::Running, i32::MAX as u32 - 7, None, &here).abandoned(), "its pid is gone");
        assert!(!run(RunState::Running, i32::MAX as u32 - 7, None, "another-host").abandoned(), "not ours to judge");
        assert!(!run(RunState::Finished, i32::MAX as u32 - 7, None, &here).abandoned(), "it ended");
    }
}
