use std::path::PathBuf;
use std::time::SystemTime;

use tokio::sync::mpsc;

use super::OperationProgress;
use super::ProjectReport;
use crate::plan::Operation;
use crate::provider::ProjectPath;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputStream {
    Stdout,
    Stderr,
}

/// What a run is, for reports and log files.
#[derive(Debug, Clone)]
pub(crate) struct RunInfo {
    pub run_id: String,
    pub provider: String,
    pub stack: String,
    pub operation: Operation,
    pub projects: Vec<ProjectPath>,
    pub parallelism: usize,
    pub log_dir: PathBuf,
    pub started: SystemTime,
    /// Pulumi locks whose holder was gone, removed before the run started.
    pub recovered_locks: Vec<String>,
}

/// A kubeconfig context an `on_success` hook installed: the end of a run says where it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InstalledKubeconfig {
    pub project: ProjectPath,
    pub context: String,
    pub file: PathBuf,
    /// The names the hook put in the file, kept so a `destroy` takes them out.
    pub entries: crate::hooks::KubeconfigEntries,
}

/// Everything that happens during a run. Reporters consume these; they never touch processes.
#[derive(Debug, Clone)]
pub(crate) enum ExecutionEvent {
    RunStarted(RunInfo),
    ProjectStarted {
        project: ProjectPath,
        attempt: u32,
        at: SystemTime,
    },
    /// A `pulumi` process started for a project: the record keeps its pid, so a lock it left
    /// can later be judged gone once this run has ended.
    PulumiStarted {
        project: ProjectPath,
        pid: u32,
        at: SystemTime,
    },
    /// One line of a project's Pulumi output, already masked.
    ProjectOutput {
        project: ProjectPath,
        stream: OutputStream,
        line: String,
    },
    ProjectProgress {
        project: ProjectPath,
        progress: OperationProgress,
    },
    /// A note on the way: retry, stack created, hook running.
    ProjectNote {
        project: ProjectPath,
        message: String,
    },
    ProjectFinished(ProjectReport),
    KubeconfigInstalled(InstalledKubeconfig),
    /// The user asked to stop; `level` tells whether running processes are being killed.
    Interrupting {
        kill: bool,
    },
    RunFinished {
        at: SystemTime,
        interrupted: bool,
    },
    /// What the history expects the rest of the run to take, renewed as projects start and end.
    RunEstimate {
        remaining: std::time::Duration,
        ended: usize,
        total: usize,
    },
}

/// The executor side of the event channel. Bounded, so a flood of output slows the producer
/// instead of filling memory.
#[derive(Debug, Clone)]
pub(crate) struct EventSender {
    sender: mpsc::Sender<ExecutionEvent>,
}

impl EventSender {
    pub(crate) fn channel(capacity: usize) -> (Self, mpsc::Receiver<ExecutionEvent>) {
        let (sender, receiver) = mpsc::channel(capacity);
        (Self { sender }, receiver)
    }

    pub(crate) async fn send(&self, event: ExecutionEvent) {
        // The consumer only goes away when the process is exiting; nothing to do then.
        let _ = self.sender.send(event).await;
    }
}
