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

pub(crate) use crate::cancel::{CancelLevel, Cancellation};
pub(crate) use execution_event::{EventSender, ExecutionEvent, InstalledKubeconfig, OutputStream, RunInfo};
pub(crate) use executor::Executor;
pub use operation_progress::OperationProgress;
pub(crate) use operation_progress::ResourceChanges;
pub(crate) use project_cli::{LockRecheck, OperationOutcome, ProjectCli, ProjectCliError, StackOutputs, StackTarget};
pub(crate) use project_job::ProjectJob;
pub(crate) use project_lifecycle::{LifecycleContext, ProjectLifecycle};
pub(crate) use project_report::{FailureDetail, ProjectReport, ProjectResult};
pub(crate) use resource_change::{ChangeKind, ResourceChange};
pub(crate) use schedule::Schedule;
pub(crate) use stack_busy::StackBusy;
pub(crate) use step_error::StepError;
pub(crate) use step_op::{StepCount, StepOp};
pub(crate) use unchanged_rule::UnchangedRule;

#[cfg(test)]
mod lifecycle_tests;
#[cfg(test)]
mod scripted_cli;
#[cfg(test)]
mod unchanged_tests;
