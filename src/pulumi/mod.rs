mod event_log;
mod operation_progress;

pub use event_log::{parse_event_line, strip_color_tags, EngineEvent, EventLogTail};
pub use operation_progress::{OperationProgress, ResourceChanges};
