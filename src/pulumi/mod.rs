mod backend;
mod child_environment;
mod encryption_salt;
mod event_log;
mod event_log_mask;
mod failure_summary;
mod operation_progress;
mod pulumi_cli;
mod pulumi_manifest;
mod pulumi_process;
mod secret_store;

pub use backend::Backend;
pub use child_environment::{is_secret_name, ChildEnvironment};
pub use encryption_salt::adopt_encryption_salt;
pub use event_log::{parse_event_line, strip_color_tags, EngineEvent, EventLogTail};
pub use event_log_mask::mask_file;
pub use failure_summary::failure_summary;
pub use pulumi_cli::{PulumiCli, PulumiCliContext};
pub use pulumi_manifest::PulumiManifest;
pub use pulumi_process::{ExitState, ProcessOutcome, PulumiProcess};
pub use secret_store::SecretStore;
// The runner's progress types, which Pulumi's events fill (`operation_progress.rs`).
pub(crate) use crate::execute::{OperationProgress, ResourceChanges};
