use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::ResourceChanges;
use crate::provider::ProjectPath;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectResult {
    Succeeded,
    Failed,
    Skipped,
    Cancelled,
    /// `refresh`, `drift`: the stack does not exist, so there was nothing to look at. Not a
    /// success: a check pointed at the wrong stack must not pass.
    #[serde(rename = "not deployed")]
    NotDeployed,
    /// Not run: only a dependent in this run, its own inputs and the upstream outputs it reads
    /// are what its last successful `up` saw. Neither a success with changes nor left to resume.
    Unchanged,
}

impl ProjectResult {
    /// Every result, in the order totals list them.
    pub const ALL: [ProjectResult; 6] = [
        ProjectResult::Succeeded,
        ProjectResult::Failed,
        ProjectResult::Skipped,
        ProjectResult::Cancelled,
        ProjectResult::NotDeployed,
        ProjectResult::Unchanged,
    ];
}

impl ProjectResult {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectResult::Succeeded => "succeeded",
            ProjectResult::Failed => "failed",
            ProjectResult::Skipped => "skipped",
            ProjectResult::Cancelled => "cancelled",
            ProjectResult::NotDeployed => "not deployed",
            ProjectResult::Unchanged => "unchanged",
        }
    }

    /// Whether it ended as it should, with nothing left for `--resume`: the one rule the footer,
    /// the summary, the reports and the resume point share (`history::ProjectState::is_done`).
    pub fn is_done(self) -> bool {
        matches!(self, ProjectResult::Succeeded | ProjectResult::Unchanged)
    }

    /// Whether `--resume` runs it again: not when its stack holds nothing, which running the
    /// refresh or drift again would find again.
    pub fn needs_resume(self) -> bool {
        !self.is_done() && self != ProjectResult::NotDeployed
    }

    /// Whether what waits on this project may start: a missing stack stops nobody from
    /// finding out that theirs is missing too.
    pub fn lets_dependents_run(self) -> bool {
        matches!(self, ProjectResult::Succeeded | ProjectResult::NotDeployed | ProjectResult::Unchanged)
    }
}

/// Why a project failed, in the words that help: Pulumi's own error diagnostics, then the log's end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct FailureDetail {
    pub summary: String,
    pub diagnostics: Vec<String>,
    pub log_tail: Vec<String>,
    pub log_path: Option<PathBuf>,
    /// The provider's advice for this failure (`failure_hints`), when its text matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl FailureDetail {
    /// Attaches the first of `hints` whose text is in this failure.
    pub(crate) fn with_hint_from(mut self, hints: &[crate::provider::FailureHint]) -> Self {
        let mut texts: Vec<&str> = vec![self.summary.as_str()];
        texts.extend(self.diagnostics.iter().map(String::as_str));
        texts.extend(self.log_tail.iter().map(String::as_str));
        self.hint = crate::provider::FailureHint::first_matching(hints, &texts).map(str::to_string);
        self
    }
}

/// The outcome of one project in one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ProjectReport {
    pub project: ProjectPath,
    pub result: ProjectResult,
    #[serde(with = "system_time_seconds")]
    pub started: Option<SystemTime>,
    #[serde(serialize_with = "duration_seconds")]
    pub duration: Duration,
    pub changes: ResourceChanges,
    /// Why it was skipped or cancelled.
    pub reason: Option<String>,
    pub failure: Option<FailureDetail>,
    pub attempts: u32,
    /// Why each attempt before the last one failed.
    pub retried: Vec<String>,
    /// Set when it differs from the run's: a prerequisite runs as an `up` in any run.
    pub operation: Option<crate::plan::Operation>,
}

impl ProjectReport {
    pub(crate) fn not_run(project: ProjectPath, result: ProjectResult, reason: String) -> Self {
        Self {
            project,
            result,
            started: None,
            duration: Duration::ZERO,
            changes: ResourceChanges::default(),
            reason: Some(reason),
            failure: None,
            attempts: 0,
            retried: Vec::new(),
            operation: None,
        }
    }
}

fn duration_seconds<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64((duration.as_secs_f64() * 1000.0).round() / 1000.0)
}

mod system_time_seconds {
    use std::time::{SystemTime, UNIX_EPOCH};

    pub(super) fn serialize<S: serde::Serializer>(time: &Option<SystemTime>, serializer: S) -> Result<S::Ok, S::Error> {
        match time.and_then(|time| time.duration_since(UNIX_EPOCH).ok()) {
            Some(since) => serializer.serialize_f64((since.as_secs_f64() * 1000.0).round() / 1000.0),
            None => serializer.serialize_none(),
        }
    }
}
