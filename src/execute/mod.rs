mod execution_event;
mod executor;
mod hook_step;
mod operation_progress;
mod prerequisite_step;
mod project_cli;
mod project_job;
mod project_lifecycle;
mod project_report;
mod readiness_step;
mod resource_change;
mod retry_step;
mod schedule;
mod stack_busy;
mod step_error;
mod step_op;
mod unchanged_rule;

pub use crate::cancel::{CancelLevel, Cancellation};
pub use execution_event::{EventSender, ExecutionEvent, InstalledKubeconfig, OutputStream, RunInfo};
pub use executor::Executor;
pub use operation_progress::{OperationProgress, ResourceChanges};
pub use project_cli::{LockRecheck, OperationOutcome, ProjectCli, ProjectCliError, StackOutputs, StackTarget};
pub use project_job::ProjectJob;
pub use project_lifecycle::{LifecycleContext, ProjectLifecycle};
pub use project_report::{FailureDetail, ProjectReport, ProjectResult};
pub use resource_change::{ChangeKind, ResourceChange};
pub use schedule::Schedule;
pub use stack_busy::StackBusy;
pub use step_error::StepError;
pub use step_op::{StepCount, StepOp};
pub use unchanged_rule::UnchangedRule;

#[cfg(test)]
mod lifecycle_tests;
#[cfg(test)]
mod scripted_cli;
#[cfg(test)]
mod unchanged_tests;
