use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{RunTimeline, Segment, SegmentKind, TimelineProject};
use crate::execute::ExecutionEvent;
use crate::report::Reporter;

/// Builds a run's timeline from its events, like any reporter, and writes it when the run ends.
///
/// Attempts come from `ProjectStarted`; retry waits, gates and hooks from the notes the Pulumi
/// job sends at each of those steps (`attempt N failed (...); retrying in ...`, `waiting until
/// ready: ...`, `ready: ...`, and the hook descriptions).
pub(crate) struct TimelineRecorder {
    state_dir: PathBuf,
    /// What each project waits for in the plan.
    waits_for: HashMap<String, Vec<String>>,
    timeline: Option<RunTimeline>,
    /// The project's open segment: (kind, start, attempt).
    open: HashMap<String, (SegmentKind, f64, u32)>,
    pub error: Option<String>,
}

fn seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or_default()
}

/// Which step a note starts, if any.
fn step_of_note(message: &str) -> Option<SegmentKind> {
    if message.starts_with("attempt ") && message.contains("; retrying in ") {
        Some(SegmentKind::RetryWait)
    } else if message.starts_with("waiting until ready: ") {
        Some(SegmentKind::Gate)
    } else if message.starts_with("install kubeconfig from output ") || message.starts_with("run `") {
        Some(SegmentKind::Hook)
    } else {
        None
    }
}

impl TimelineRecorder {
    pub(crate) fn new(state_dir: PathBuf, waits_for: HashMap<String, Vec<String>>) -> Self {
        Self { state_dir, waits_for, timeline: None, open: HashMap::new(), error: None }
    }

    fn project(&mut self, path: &str) -> Option<&mut TimelineProject> {
        let timeline = self.timeline.as_mut()?;
        if !timeline.projects.iter().any(|project| project.project == path) {
            timeline.projects.push(TimelineProject {
                project: path.to_string(),
                result: "running".into(),
                waits_for: self.waits_for.get(path).cloned().unwrap_or_default(),
                segments: Vec::new(),
            });
        }
        timeline.projects.iter_mut().rev().find(|project| project.project == path)
    }

    /// Ends the open segment of `path` at `at`, as `kind` when given.
    fn close(&mut self, path: &str, at: f64, kind: Option<SegmentKind>) {
        if let Some((open_kind, start, attempt)) = self.open.remove(path) {
            if let Some(project) = self.project(path) {
                project.segments.push(Segment { kind: kind.unwrap_or(open_kind), start, end: at.max(start), attempt });
            }
        }
    }

    fn attempt_of(&self, path: &str) -> u32 {
        self.open.get(path).map_or(1, |(_, _, attempt)| *attempt)
    }
}

impl Reporter for TimelineRecorder {
    fn name(&self) -> &'static str {
        "timeline recorder"
    }

    fn on_event(&mut self, event: &ExecutionEvent) {
        let now = seconds(SystemTime::now());
        match event {
            ExecutionEvent::RunStarted(info) => {
                self.timeline = Some(RunTimeline {
                    run_id: info.run_id.clone(),
                    provider: info.provider.clone(),
                    stack: info.stack.clone(),
                    operation: info.operation.as_str().to_string(),
                    parallelism: info.parallelism,
                    started: seconds(info.started),
                    ended: None,
                    projects: Vec::new(),
                });
            }
            ExecutionEvent::ProjectStarted { project, attempt, at } => {
                let path = project.as_str();
                self.close(path, seconds(*at), None);
                let _ = self.project(path);
                self.open.insert(path.to_string(), (SegmentKind::Attempt, seconds(*at), *attempt));
            }
            ExecutionEvent::ProjectNote { project, message } => {
                let path = project.as_str();
                let Some(kind) = step_of_note(message) else { return };
                if !self.open.contains_key(path) {
                    return;
                }
                let attempt = self.attempt_of(path);
                let ending = if kind == SegmentKind::RetryWait { Some(SegmentKind::FailedAttempt) } else { None };
                self.close(path, now, ending);
                self.open.insert(path.to_string(), (kind, now, attempt));
            }
            ExecutionEvent::ProjectFinished(report) => {
                let path = report.project.as_str();
                let end = report.started.map_or(now, |started| seconds(started) + report.duration.as_secs_f64());
                // A stack found not deployed was looked at, not tried and failed.
                use crate::execute::ProjectResult;
                let failed_attempt = matches!(self.open.get(path), Some((SegmentKind::Attempt, _, _)))
                    && matches!(report.result, ProjectResult::Failed | ProjectResult::Cancelled);
                self.close(path, end, failed_attempt.then_some(SegmentKind::FailedAttempt));
                if let Some(project) = self.project(path) {
                    project.result = report.result.as_str().to_string();
                }
            }
            ExecutionEvent::RunFinished { at, .. } => {
                let open: Vec<String> = self.open.keys().cloned().collect();
                for path in open {
                    self.close(&path, seconds(*at), None);
                }
                if let Some(timeline) = self.timeline.as_mut() {
                    timeline.ended = Some(seconds(*at));
                    if let Err(err) = timeline.save(&self.state_dir) {
                        self.error.get_or_insert(err.chain().to_string());
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::execute::{ProjectReport, ProjectResult, RunInfo};
    use crate::plan::Operation;
    use crate::provider::ProjectPath;

    fn run_started(run_id: &str, operation: Operation, project: &ProjectPath, dir: &std::path::Path) -> ExecutionEvent {
        ExecutionEvent::RunStarted(RunInfo {
            run_id: run_id.into(),
            provider: "demo".into(),
            stack: "dev".into(),
            operation,
            projects: vec![project.clone()],
            parallelism: 2,
            log_dir: dir.to_path_buf(),
            started: SystemTime::now(),
            recovered_locks: Vec::new(),
        })
    }

    #[test]
    fn attempts_backoff_hooks_and_gates_become_segments_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut recorder = TimelineRecorder::new(dir.path().to_path_buf(), HashMap::new());
        let project = ProjectPath::new("app");
        recorder.on_event(&run_started("r1", Operation::Up, &project, dir.path()));
        let started = SystemTime::now();
        let note = |message: &str| ExecutionEvent::ProjectNote { project: project.clone(), message: message.into() };
        recorder.on_event(&ExecutionEvent::ProjectStarted { project: project.clone(), attempt: 1, at: started });
        recorder.on_event(&note("creating stack `dev`"));
        recorder.on_event(&note("attempt 1 failed (409 conflict); retrying in 1s"));
        recorder.on_event(&ExecutionEvent::ProjectStarted {
            project: project.clone(),
            attempt: 2,
            at: SystemTime::now(),
        });
        recorder.on_event(&note("install kubeconfig from output `kubeconfig`"));
        recorder.on_event(&note("waiting until ready: tcp 127.0.0.1:1"));
        recorder.on_event(&note("ready: tcp 127.0.0.1:1 passed after 1 attempt"));
        let mut report = ProjectReport::not_run(project.clone(), ProjectResult::Succeeded, String::new());
        report.started = Some(started);
        report.duration = Duration::from_millis(5);
        recorder.on_event(&ExecutionEvent::ProjectFinished(report));
        recorder.on_event(&ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false });
        assert!(recorder.error.is_none());
        let timeline = RunTimeline::load(dir.path(), "r1").expect("written when the run ends");
        let kinds: Vec<(SegmentKind, u32)> =
            timeline.projects[0].segments.iter().map(|segment| (segment.kind, segment.attempt)).collect();
        assert_eq!(
            kinds,
            [
                (SegmentKind::FailedAttempt, 1),
                (SegmentKind::RetryWait, 1),
                (SegmentKind::Attempt, 2),
                (SegmentKind::Hook, 2),
                (SegmentKind::Gate, 2),
            ]
        );
        assert_eq!(timeline.projects[0].result, "succeeded");
        assert_eq!(timeline.parallelism, 2);
    }

    /// Every result a project can end with: only a failure or a cancellation ends an attempt as
    /// failed; a stack found not deployed, or a project proven unchanged, was looked at.
    #[test]
    fn only_a_failure_or_a_cancellation_is_a_failed_attempt() {
        for (result, failed) in [
            (ProjectResult::Succeeded, false),
            (ProjectResult::Failed, true),
            (ProjectResult::Cancelled, true),
            (ProjectResult::NotDeployed, false),
            (ProjectResult::Unchanged, false),
            (ProjectResult::Skipped, false),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let mut recorder = TimelineRecorder::new(dir.path().to_path_buf(), HashMap::new());
            let project = ProjectPath::new("net");
            let started = SystemTime::now();
            recorder.on_event(&run_started("r2", Operation::Drift, &project, dir.path()));
            recorder.on_event(&ExecutionEvent::ProjectStarted { project: project.clone(), attempt: 1, at: started });
            let mut report = ProjectReport::not_run(project.clone(), result, String::new());
            report.started = Some(started);
            recorder.on_event(&ExecutionEvent::ProjectFinished(report));
            recorder.on_event(&ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false });
            let timeline = RunTimeline::load(dir.path(), "r2").unwrap();
            let kind = timeline.projects[0].segments[0].kind;
            assert_eq!(kind == SegmentKind::FailedAttempt, failed, "{result:?}: {kind:?}");
        }
    }
}
