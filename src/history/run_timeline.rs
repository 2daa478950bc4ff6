use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::RunRecord;
use crate::config::write_atomically_unflushed;
use crate::error::{Result, UserError};

/// What a stretch of a project's time was spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// A `pulumi` operation that succeeded (or is the last one of a project that did).
    Attempt,
    /// A `pulumi` operation that failed, retried or not.
    FailedAttempt,
    /// The backoff between a failed attempt and the next.
    RetryWait,
    /// A readiness gate being polled.
    Gate,
    /// `on_success` hooks.
    Hook,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub kind: SegmentKind,
    /// Seconds since the Unix epoch.
    pub start: f64,
    pub end: f64,
    pub attempt: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineProject {
    pub project: String,
    pub result: String,
    /// What it waited for in the plan (dependencies and cluster providers): the time between
    /// the last of them ending and its start was spent waiting for a slot.
    #[serde(default)]
    pub waits_for: Vec<String>,
    pub segments: Vec<Segment>,
}

impl TimelineProject {
    pub fn start(&self) -> Option<f64> {
        self.segments.first().map(|segment| segment.start)
    }

    pub fn end(&self) -> Option<f64> {
        self.segments.iter().map(|segment| segment.end).reduce(f64::max)
    }
}

/// Where the time of one run went, project by project and attempt by attempt:
/// `.runner/timelines/<run-id>.json`, written as the run ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTimeline {
    pub run_id: String,
    pub provider: String,
    pub stack: String,
    pub operation: String,
    pub parallelism: usize,
    pub started: f64,
    pub ended: Option<f64>,
    pub projects: Vec<TimelineProject>,
}

impl RunTimeline {
    pub fn file(state_dir: &Path, run_id: &str) -> PathBuf {
        state_dir.join("timelines").join(format!("{run_id}.json"))
    }

    pub fn save(&self, state_dir: &Path) -> Result<()> {
        let mut json = serde_json::to_vec_pretty(self).map_err(|err| UserError::Internal(err.to_string()))?;
        json.push(b'\n');
        // Written as the run ends, so the run waits for it; unflushed, since a timeline lost to
        // a power cut is drawn again from the run's record (`from_record`), which is flushed.
        write_atomically_unflushed(&Self::file(state_dir, &self.run_id), &json)
    }

    pub fn load(state_dir: &Path, run_id: &str) -> Option<Self> {
        let bytes = std::fs::read(Self::file(state_dir, run_id)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// From the run history alone (a run recorded before timelines were kept): one bar per
    /// project, without attempts, gates or hooks.
    pub fn from_record(record: &RunRecord) -> Self {
        Self {
            run_id: record.run_id.clone(),
            provider: record.provider.clone(),
            stack: record.stack.clone(),
            operation: record.operation.as_str().to_string(),
            parallelism: 0,
            started: record.started,
            ended: record.ended,
            projects: record
                .projects
                .iter()
                .map(|project| TimelineProject {
                    project: project.project.clone(),
                    result: project.result.as_str().to_string(),
                    waits_for: Vec::new(),
                    segments: match (project.started, project.ended) {
                        (Some(start), Some(end)) => vec![Segment {
                            kind: if matches!(
                                project.result,
                                super::ProjectState::Failed | super::ProjectState::Cancelled
                            ) {
                                SegmentKind::FailedAttempt
                            } else {
                                SegmentKind::Attempt
                            },
                            start,
                            end,
                            attempt: project.attempts.max(1),
                        }],
                        _ => Vec::new(),
                    },
                })
                .collect(),
        }
    }

    /// The chain of projects that decided the run's length: from the last to end, back through
    /// the plan blocker that ended last before it started.
    pub fn critical_path(&self) -> Vec<usize> {
        let index = |path: &str| self.projects.iter().position(|project| project.project == path);
        let mut chain = Vec::new();
        let mut at = (0..self.projects.len())
            .filter(|&i| self.projects[i].end().is_some())
            .max_by(|&a, &b| self.projects[a].end().unwrap_or(0.0).total_cmp(&self.projects[b].end().unwrap_or(0.0)));
        while let Some(i) = at {
            chain.push(i);
            let start = self.projects[i].start().unwrap_or(self.started);
            at = self.projects[i]
                .waits_for
                .iter()
                .filter_map(|path| index(path))
                .filter(|&j| self.projects[j].end().is_some_and(|end| end <= start + 0.001))
                .max_by(|&a, &b| {
                    self.projects[a].end().unwrap_or(0.0).total_cmp(&self.projects[b].end().unwrap_or(0.0))
                });
        }
        chain.reverse();
        chain
    }

    /// When `project` could have started: the last of its blockers ended (or the run began).
    pub fn ready_at(&self, project: &TimelineProject) -> f64 {
        project
            .waits_for
            .iter()
            .filter_map(|path| self.projects.iter().find(|other| &other.project == path))
            .filter_map(TimelineProject::end)
            .fold(self.started, f64::max)
    }
}
