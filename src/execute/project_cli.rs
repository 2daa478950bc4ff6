use std::future::Future;
use std::path::PathBuf;
use std::time::SystemTime;

use super::{Cancellation, EventSender, FailureDetail, OperationProgress};
use crate::plan::Operation;
use crate::provider::{Project, ProjectPath};

/// The stack outputs of a project, by name.
pub(crate) type StackOutputs = serde_json::Map<String, serde_json::Value>;

/// Where a project's stack lives, as the CLI adapter found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StackTarget {
    /// The stack's full name, as messages show it.
    pub name: String,
    /// The project's folder: hooks and readiness gates run there.
    pub dir: PathBuf,
    /// `None` when only running the CLI can tell.
    pub exists: Option<bool>,
    /// Resources the backend holds in it now (the stack itself included): 0 once destroyed;
    /// `None` when only the CLI can tell.
    pub resources: Option<usize>,
}

/// How one operation of the CLI ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OperationOutcome {
    pub succeeded: bool,
    /// The runner asked it to stop.
    pub cancelled: bool,
    /// The CLI said the stack does not exist (it was never created).
    pub stack_missing: bool,
    pub progress: OperationProgress,
    /// Why it failed, in the CLI's own words; set whenever `succeeded` is false.
    pub failure: Option<FailureDetail>,
    /// Upstream projects never deployed whose `mock_outputs` a `preview` read instead.
    pub mocked: Vec<String>,
}

impl OperationOutcome {
    /// Everything the failure said, for retry patterns to match.
    pub(crate) fn failure_text(&self) -> String {
        self.failure.as_ref().map_or_else(String::new, |failure| {
            format!("{}\n{}\n{}", failure.summary, failure.diagnostics.join("\n"), failure.log_tail.join("\n"))
        })
    }
}

/// Who holds a stack's lock, asked again once an operation failed because the stack is locked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LockRecheck {
    /// No lock is left (its holder was gone and the lock is removed, or it finished): try again now.
    Released(String),
    /// Its holder still runs, or cannot be seen from here: named, and waited for.
    Held(String),
    /// The CLI cannot tell.
    Unknown,
}

/// Why the CLI could not find a stack or read its outputs; the project then fails with it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProjectCliError {
    /// The CLI could not be started (`pulumi` missing or not executable): why.
    #[error("cannot run {0}")]
    NotStarted(String),
    /// The CLI ran and failed; its own words, masked.
    #[error("{0}")]
    Failed(String),
    /// What the project holds could not be read (`Pulumi.yaml`); its cause kept.
    #[error(transparent)]
    Project(Box<dyn std::error::Error + Send + Sync>),
    /// The CLI's output is not the JSON it prints.
    #[error("`{command}` printed no JSON object")]
    NoJson { command: &'static str, source: serde_json::Error },
    #[error("internal error: {0}")]
    Internal(String),
}

/// The narrow waist between a project's lifecycle and the infrastructure CLI (`pulumi/` adapts it).
/// Tests script it, so retries, prerequisites and hooks are tested without a process.
pub(crate) trait ProjectCli: Send + Sync + 'static {
    /// Finds the project's stack; an error means the project cannot run at all.
    fn locate_stack(&self, project: &Project) -> impl Future<Output = Result<StackTarget, ProjectCliError>> + Send;

    /// Creates the stack `operation` needs; a `preview` over mock outputs runs on a throwaway
    /// backend and creates nothing in the real one.
    fn create_stack(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> impl Future<Output = Result<(), FailureDetail>> + Send;

    /// Runs `operation`; an `up` keeps `fingerprint` (from `up_fingerprint`) in the backend with
    /// the update, so a later run can prove from the backend what it was made with.
    fn run_operation(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        fingerprint: Option<&str>,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> impl Future<Output = OperationOutcome> + Send;

    /// Every output, secrets included (in clear: the caller masks them).
    fn read_outputs(&self, stack: &StackTarget) -> impl Future<Output = Result<StackOutputs, ProjectCliError>> + Send;

    /// The outputs the CLI itself marks secret, when the operation's events did not say;
    /// `None` when it cannot tell (every output is then treated as secret).
    fn secret_output_names(&self, _stack: &StackTarget) -> impl Future<Output = Option<Vec<String>>> + Send {
        async { None }
    }

    /// When `project` last succeeded with `operation` according to a state backend other machines
    /// share (their runs never reach this machine's records); `None` when there is none.
    fn last_shared_success(
        &self,
        _project: &ProjectPath,
        _operation: Operation,
    ) -> impl Future<Output = Option<SystemTime>> + Send {
        async { None }
    }

    /// After a failure that says the stack is locked: reads the lock, removes it when its holder
    /// is provably gone, else names the holder.
    fn recheck_stack_lock(&self, _project: &Project, _stack: &StackTarget) -> impl Future<Output = LockRecheck> + Send {
        async { LockRecheck::Unknown }
    }

    /// What `project`'s `up` would be made with now, as one salted digest: its folder, its stack
    /// configuration, its environment, its provider entry, the CLI and plugins, and the outputs of
    /// `upstream` as the backend holds them now (only those in `reads`, when known). `None` when
    /// any part cannot be read: the project then runs.
    fn up_fingerprint(
        &self,
        _project: &Project,
        _upstream: &[ProjectPath],
        _reads: Option<&std::collections::BTreeSet<String>>,
    ) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }

    /// The fingerprint the stack's last `up` was made with, when the backend proves the stack is
    /// as that `up` left it; `None` when a proof is missing.
    fn deployed_fingerprint(&self, _project: &Project) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }

    /// When `project` last succeeded with `operation` on this stack before this run.
    fn last_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime>;
}
