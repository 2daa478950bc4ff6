use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{ProjectRecord, ProjectState, RecordedProcess, RunRecord, RunState, RunStore, SuccessIndex};
use crate::execute::ExecutionEvent;
use crate::report::Reporter;

/// Large runs would rewrite their record thousands of times; one write per interval is enough,
/// because a project left `running` by a crash is simply run again by `--resume`.
const MIN_SAVE_INTERVAL: Duration = Duration::from_millis(100);

/// Keeps the run history as the run happens: a consumer of execution events like any reporter.
pub(crate) struct HistoryRecorder {
    store: RunStore,
    record: Option<RunRecord>,
    /// Loaded when the run starts; saved with the record whenever a project succeeded.
    successes: Option<SuccessIndex>,
    successes_changed: bool,
    last_save: Option<Instant>,
    dirty: bool,
    /// The first error writing history, reported once at the end of the run by `finish`.
    pub error: Option<String>,
}

impl HistoryRecorder {
    pub(crate) fn new(store: RunStore) -> Self {
        Self {
            store,
            record: None,
            successes: None,
            successes_changed: false,
            last_save: None,
            dirty: false,
            error: None,
        }
    }

    fn save(&mut self, force: bool) {
        self.dirty = true;
        let due = self.last_save.is_none_or(|at| at.elapsed() >= MIN_SAVE_INTERVAL);
        if !(force || due) {
            return;
        }
        if let Some(record) = &self.record {
            let successes = self.successes.as_ref().filter(|_| self.successes_changed);
            let (saved, index_saved) = save_both(&self.store, record, successes);
            for result in [saved, index_saved] {
                if let Err(err) = result {
                    self.error.get_or_insert_with(|| err.chain().to_string());
                }
            }
            if successes.is_some() {
                self.successes_changed = false;
            }
            self.last_save = Some(Instant::now());
            self.dirty = false;
        }
    }

    /// Whether every project of the record has an outcome: the executor's `RunFinished`
    /// follows at once and saves, so a save now would only double the disk flushes the run
    /// waits for before it can exit.
    fn plan_complete(&self) -> bool {
        self.record.as_ref().is_some_and(|record| {
            record.projects.iter().all(|p| !matches!(p.result, ProjectState::Pending | ProjectState::Running))
        })
    }
}

/// Writes the record and, when given, the success index: each is flushed to disk before it
/// replaces the old file, so two flushes; side by side they cost less than one after the other
/// (a journaling filesystem can commit both at once).
fn save_both(
    store: &RunStore,
    record: &RunRecord,
    successes: Option<&SuccessIndex>,
) -> (crate::error::Result<()>, crate::error::Result<()>) {
    let Some(successes) = successes else { return (store.save(record), Ok(())) };
    std::thread::scope(|scope| {
        let save_index = || store.save_success_index(&record.stack, successes);
        // Without a thread to spare, one after the other.
        let Ok(index) = std::thread::Builder::new().spawn_scoped(scope, save_index) else {
            return (store.save(record), save_index());
        };
        let saved = store.save(record);
        let index_saved = index
            .join()
            .unwrap_or_else(|_| Err(crate::error::UserError::Internal("writing the success index stopped".into())));
        (saved, index_saved)
    })
}

impl HistoryRecorder {
    fn note_success(&mut self, report: &crate::execute::ProjectReport) {
        let (Some(record), Some(successes)) = (&self.record, self.successes.as_mut()) else { return };
        if report.result != crate::execute::ProjectResult::Succeeded {
            return;
        }
        let Some(ended) = report.started.map(|started| seconds(started + report.duration)) else { return };
        let operation = report.operation.unwrap_or(record.operation);
        let project = report.project.as_str();
        self.successes_changed |= successes.record(&record.provider, &record.stack, project, operation, ended);
    }
}

fn seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH).map(|d| (d.as_secs_f64() * 1000.0).round() / 1000.0).unwrap_or_default()
}

impl Reporter for HistoryRecorder {
    fn name(&self) -> &'static str {
        "history recorder"
    }

    /// A save skipped for being too soon after the last is made here: without it a success
    /// followed by a project that runs for an hour stays unwritten for that hour, and a
    /// `kill -9` then makes `--resume` run the finished project again.
    fn on_tick(&mut self) {
        if self.dirty {
            self.save(false);
        }
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.dirty {
            self.save(true);
        }
        match self.error.take() {
            Some(error) => Err(format!(
                "the run history could not be written ({error}): `status`, `history` and `--resume` do not know this run"
            )),
            None => Ok(()),
        }
    }

    fn on_event(&mut self, event: &ExecutionEvent) {
        match event {
            ExecutionEvent::RunStarted(info) => {
                let runner = crate::cancel::ProcessIdentity::current();
                self.record = Some(RunRecord {
                    run_id: info.run_id.clone(),
                    provider: info.provider.clone(),
                    stack: info.stack.clone(),
                    operation: info.operation,
                    state: RunState::Running,
                    pid: runner.pid,
                    start_ticks: Some(runner.start_ticks),
                    host: super::stack_lock::host_name(),
                    started: seconds(info.started),
                    ended: None,
                    projects: info.projects.iter().map(|path| ProjectRecord::pending(path.to_string(), None)).collect(),
                    recovered_locks: info.recovered_locks.clone(),
                    pulumi_processes: Vec::new(),
                });
                self.successes = Some(self.store.success_index(&info.stack));
                self.save(true);
            }
            ExecutionEvent::ProjectStarted { project, attempt, at } => {
                if let Some(entry) =
                    self.record.as_mut().and_then(|r| r.projects.iter_mut().find(|p| p.project == project.as_str()))
                {
                    entry.result = ProjectState::Running;
                    entry.attempts = *attempt;
                    entry.started.get_or_insert(seconds(*at));
                }
                self.save(false);
            }
            ExecutionEvent::PulumiStarted { project, pid, at } => {
                if let Some(record) = self.record.as_mut() {
                    let process = RecordedProcess { project: project.to_string(), pid: *pid, started: seconds(*at) };
                    record.pulumi_processes.push(process);
                }
                self.save(false);
            }
            ExecutionEvent::ProjectFinished(report) => {
                // A prerequisite run is not in the plan: it gets an entry of its own.
                if let Some(record) = self.record.as_mut() {
                    if report.operation.is_some()
                        || !record.projects.iter().any(|p| p.project == report.project.as_str())
                    {
                        record.projects.push(ProjectRecord::pending(report.project.to_string(), report.operation));
                    }
                }
                if let Some(entry) = self
                    .record
                    .as_mut()
                    .and_then(|r| r.projects.iter_mut().rev().find(|p| p.project == report.project.as_str()))
                {
                    entry.result = report.result.into();
                    entry.attempts = report.attempts;
                    entry.started = report.started.map(seconds);
                    entry.ended = report.started.map(|started| seconds(started + report.duration));
                    entry.changes = report.changes.into();
                    entry.reason = report.reason.clone().or_else(|| report.failure.as_ref().map(|f| f.summary.clone()));
                    entry.retries.clone_from(&report.retried);
                }
                self.note_success(report);
                if !self.plan_complete() {
                    self.save(false);
                }
            }
            ExecutionEvent::RunFinished { at, interrupted } => {
                if let Some(record) = self.record.as_mut() {
                    record.state = if *interrupted { RunState::Interrupted } else { RunState::Finished };
                    record.ended = Some(seconds(*at));
                }
                self.save(true);
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

    #[test]
    fn successes_reach_the_index_with_the_operation_they_ran() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::new(dir.path());
        let started = SystemTime::now() - Duration::from_secs(10);
        let mut recorder = HistoryRecorder::new(store.clone());
        recorder.on_event(&ExecutionEvent::RunStarted(RunInfo {
            run_id: "r1".into(),
            provider: "aws".into(),
            stack: "dev".into(),
            operation: Operation::Refresh,
            projects: vec![ProjectPath::new("app")],
            parallelism: 1,
            log_dir: dir.path().join("logs"),
            started,
            recovered_locks: Vec::new(),
        }));
        let finished = |project: &str, result: ProjectResult, operation: Option<Operation>| {
            let mut report = ProjectReport::not_run(ProjectPath::new(project), result, String::new());
            report.started = Some(started);
            report.duration = Duration::from_secs(2);
            report.operation = operation;
            ExecutionEvent::ProjectFinished(report)
        };
        recorder.on_event(&finished("creds", ProjectResult::Succeeded, Some(Operation::Up)));
        recorder.on_event(&finished("app", ProjectResult::Failed, None));
        recorder.on_event(&ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false });
        assert!(recorder.error.is_none());

        let index = store.success_index("dev").of_stack("aws", "dev");
        let ended = index.last_success(&ProjectPath::new("creds"), Operation::Up).unwrap();
        let expected = started + Duration::from_secs(2);
        let off = ended.duration_since(expected).unwrap_or_else(|err| err.duration());
        assert!(off < Duration::from_millis(2), "recorded at the end of the operation");
        assert_eq!(index.last_success(&ProjectPath::new("creds"), Operation::Refresh), None);
        assert_eq!(index.last_success(&ProjectPath::new("app"), Operation::Refresh), None, "a failure is no success");
        assert_eq!(store.runs()[0].projects[1].result, ProjectState::Succeeded);
    }

    /// A success that comes too soon after the last save is held back, and written by the next
    /// tick even when no other event follows (the next project may run for an hour).
    #[test]
    fn a_held_back_success_is_written_by_the_next_tick() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::new(dir.path());
        let mut recorder = HistoryRecorder::new(store.clone());
        recorder.on_event(&ExecutionEvent::RunStarted(RunInfo {
            run_id: "r1".into(),
            provider: "aws".into(),
            stack: "dev".into(),
            operation: Operation::Up,
            projects: vec![ProjectPath::new("vpc"), ProjectPath::new("eks")],
            parallelism: 1,
            log_dir: dir.path().join("logs"),
            started: SystemTime::now(),
            recovered_locks: Vec::new(),
        }));
        let mut report = ProjectReport::not_run(ProjectPath::new("vpc"), ProjectResult::Succeeded, String::new());
        report.started = Some(SystemTime::now());
        recorder.on_event(&ExecutionEvent::ProjectFinished(report));
        let saved = || store.runs()[0].projects[0].result;
        assert_eq!(saved(), ProjectState::Pending, "held back: the run started a moment ago");
        recorder.on_tick();
        std::thread::sleep(MIN_SAVE_INTERVAL);
        recorder.on_tick();
        assert_eq!(saved(), ProjectState::Succeeded);
        assert!(!recorder.dirty);
    }
}
