use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use crate::execute::ExecutionEvent;
use crate::plan::{forecast_remaining, ExecutionPlan, StepProgress};
use crate::provider::ProjectPath;

/// Follows a run's events and says, after each start and end, how long the rest should take
/// (`ExecutionEvent::RunEstimate`), from the plan's expected durations. Says nothing when the
/// history knows no project of the plan.
pub(crate) struct EtaTracker {
    plan: ExecutionPlan,
    parallelism: usize,
    slots: HashMap<ProjectPath, usize>,
    progress: Vec<StepProgress>,
    started: Vec<Option<SystemTime>>,
}

impl EtaTracker {
    /// `paths` gives each step's project path, in the plan's step order.
    pub(crate) fn new(plan: ExecutionPlan, paths: Vec<ProjectPath>, parallelism: usize) -> Option<Self> {
        plan.steps.iter().any(|step| step.expected.is_some()).then(|| {
            let count = plan.steps.len();
            Self {
                plan,
                parallelism,
                slots: paths.into_iter().enumerate().map(|(slot, path)| (path, slot)).collect(),
                progress: vec![StepProgress::Pending; count],
                started: vec![None; count],
            }
        })
    }

    /// The estimate this event changes, if any.
    pub(crate) fn on_event(&mut self, event: &ExecutionEvent) -> Option<ExecutionEvent> {
        let now = SystemTime::now();
        match event {
            ExecutionEvent::RunStarted(_) => {}
            ExecutionEvent::ProjectStarted { project, at, .. } => {
                let &slot = self.slots.get(project)?;
                if self.progress[slot] != StepProgress::Pending {
                    return None;
                }
                self.started[slot] = Some(*at);
                self.progress[slot] = StepProgress::Running(Duration::ZERO);
            }
            ExecutionEvent::ProjectFinished(report) => {
                let &slot = self.slots.get(&report.project)?;
                if report.operation.is_some() {
                    return None; // a prerequisite's own run, inside its dependent's time
                }
                self.progress[slot] = StepProgress::Ended;
            }
            _ => return None,
        }
        for (slot, state) in self.progress.iter_mut().enumerate() {
            if let (StepProgress::Running(_), Some(started)) = (*state, self.started[slot]) {
                *state = StepProgress::Running(now.duration_since(started).unwrap_or_default());
            }
        }
        let remaining = forecast_remaining(&self.plan, self.parallelism, &self.progress)?;
        let ended = self.progress.iter().filter(|state| **state == StepProgress::Ended).count();
        Some(ExecutionEvent::RunEstimate { remaining, ended, total: self.progress.len() })
    }
}
