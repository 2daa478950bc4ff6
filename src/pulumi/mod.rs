mod backend;
mod child_environment;
mod event_log;
mod operation_progress;
mod pulumi_job;
mod pulumi_manifest;
mod pulumi_process;
pub mod stack_history;

pub use backend::Backend;
pub use child_environment::{is_secret_name, ChildEnvironment};
pub use event_log::{parse_event_line, strip_color_tags, EngineEvent, EventLogTail};
pub use operation_progress::{OperationProgress, ResourceChanges};
pub use pulumi_job::{PulumiJob, PulumiJobContext};
pub use pulumi_manifest::PulumiManifest;
pub use pulumi_process::{ExitState, ProcessOutcome, PulumiProcess};
