mod cancellation;
mod execution_event;
mod executor;
mod project_job;
mod project_report;
mod schedule;

pub use cancellation::{CancelLevel, Cancellation};
pub use execution_event::{EventSender, ExecutionEvent, OutputStream, RunInfo};
pub use executor::Executor;
pub use project_job::ProjectJob;
pub use project_report::{FailureDetail, ProjectReport, ProjectResult};
pub use schedule::Schedule;
