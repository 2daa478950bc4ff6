//! A `ProjectCli` that runs no process: each project's operations end as scripted, and every
//! call is written down, so lifecycle tests can say exactly what reached the CLI.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use super::{
    Cancellation, EventSender, FailureDetail, LockRecheck, OperationOutcome, ProjectCli, StackOutputs, StackTarget,
};
use crate::plan::Operation;
use crate::provider::{Project, ProjectPath};

#[derive(Default)]
pub(super) struct ScriptedCli {
    /// Outcomes per project, used in order; once they run out, operations succeed.
    pub outcomes: Mutex<HashMap<String, VecDeque<OperationOutcome>>>,
    /// `up a`, `create a`, `outputs a`: what was asked, in order.
    pub calls: Mutex<Vec<String>>,
    /// What `locate_stack` says about existence.
    pub exists: Option<bool>,
    pub history: HashMap<String, SystemTime>,
    /// What reading a locked stack's lock again finds; `None`: it cannot tell.
    pub lock_recheck: Option<LockRecheck>,
    /// Stack folders an operation runs on right now, and every time one was entered twice.
    pub active: Mutex<Vec<String>>,
    pub overlaps: Mutex<Vec<String>>,
    /// Each project's own inputs, as its fingerprint holds them; none: they cannot be told.
    pub inputs: HashMap<String, String>,
    /// What the backend holds, shared by the runs of one test.
    pub backend: std::sync::Arc<Mutex<ScriptedBackend>>,
}

/// A backend as far as skips need it: each stack's outputs, and the fingerprint its last `up`
/// kept while nothing changed the stack since.
#[derive(Debug, Default)]
pub(super) struct ScriptedBackend {
    pub outputs: HashMap<String, StackOutputs>,
    pub last_up: HashMap<String, String>,
}

impl ScriptedCli {
    pub(super) fn script(self, project: &str, outcomes: Vec<OperationOutcome>) -> Self {
        self.outcomes.lock().unwrap().insert(project.to_string(), outcomes.into());
        self
    }

    pub(super) fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }

    fn call(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }
}

pub(super) fn failure(message: &str) -> OperationOutcome {
    OperationOutcome {
        failure: Some(FailureDetail { summary: message.to_string(), ..Default::default() }),
        ..Default::default()
    }
}

impl ProjectCli for ScriptedCli {
    async fn locate_stack(&self, project: &Project) -> Result<StackTarget, super::ProjectCliError> {
        Ok(StackTarget {
            name: format!("dev-{}", project.path),
            dir: PathBuf::from("."),
            exists: self.exists,
            resources: None,
        })
    }

    async fn create_stack(
        &self,
        project: &Project,
        _: &StackTarget,
        _: Operation,
        _: &EventSender,
        _: &Cancellation,
    ) -> Result<(), FailureDetail> {
        self.call(format!("create {}", project.path));
        Ok(())
    }

    async fn run_operation(
        &self,
        project: &Project,
        _: &StackTarget,
        operation: Operation,
        fingerprint: Option<&str>,
        _: &EventSender,
        _: &Cancellation,
    ) -> OperationOutcome {
        self.call(format!("{operation} {}", project.path));
        let folder = project.stack_folder().to_string();
        if self.active.lock().unwrap().contains(&folder) {
            self.overlaps.lock().unwrap().push(format!("{operation} {}", project.path));
        }
        self.active.lock().unwrap().push(folder.clone());
        // Long enough for anything else the executor started to reach the CLI meanwhile.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let mut active = self.active.lock().unwrap();
        if let Some(at) = active.iter().position(|held| *held == folder) {
            active.remove(at);
        }
        drop(active);
        let next = self.outcomes.lock().unwrap().get_mut(project.path.as_str()).and_then(VecDeque::pop_front);
        let outcome = next.unwrap_or(OperationOutcome { succeeded: true, ..Default::default() });
        let mut backend = self.backend.lock().unwrap();
        let name = project.path.to_string();
        match operation {
            Operation::Up => {
                backend.last_up.remove(&name);
                if outcome.succeeded {
                    let outputs = outcome.progress.stack_outputs.clone().unwrap_or_default();
                    backend.outputs.insert(name.clone(), outputs);
                    if let Some(fingerprint) = fingerprint {
                        backend.last_up.insert(name, fingerprint.to_string());
                    }
                }
            }
            Operation::Destroy | Operation::Refresh => {
                backend.last_up.remove(&name);
            }
            _ => {}
        }
        outcome
    }

    async fn recheck_stack_lock(&self, project: &Project, _: &StackTarget) -> LockRecheck {
        self.call(format!("recheck {}", project.path));
        self.lock_recheck.clone().unwrap_or(LockRecheck::Unknown)
    }

    async fn read_outputs(&self, stack: &StackTarget) -> Result<StackOutputs, super::ProjectCliError> {
        self.call(format!("outputs {}", stack.name));
        Ok(StackOutputs::new())
    }

    async fn up_fingerprint(
        &self,
        project: &Project,
        upstream: &[ProjectPath],
        reads: Option<&std::collections::BTreeSet<String>>,
    ) -> Option<String> {
        let mut fingerprint = self.inputs.get(project.path.as_str())?.clone();
        let backend = self.backend.lock().unwrap();
        for path in upstream {
            let outputs = backend.outputs.get(path.as_str())?;
            let read: StackOutputs = outputs
                .iter()
                .filter(|(name, _)| reads.is_none_or(|reads| reads.contains(*name)))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            fingerprint.push_str(&format!("|{path}={}", serde_json::Value::Object(read)));
        }
        Some(fingerprint)
    }

    async fn deployed_fingerprint(&self, project: &Project) -> Option<String> {
        self.backend.lock().unwrap().last_up.get(project.path.as_str()).cloned()
    }

    fn last_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime> {
        (operation == Operation::Up).then(|| self.history.get(project.as_str()).copied()).flatten()
    }
}
