mod expected_durations;
mod history_recorder;
mod resume_point;
mod run_record;
mod run_store;
mod run_timeline;
mod stack_lock;
mod success_index;
mod timeline_recorder;

pub use expected_durations::expected_durations;
pub use history_recorder::HistoryRecorder;
pub use resume_point::{ResumeBasis, ResumePoint};
pub use run_record::{ProjectRecord, ProjectState, RecordedProcess, RunRecord, RunState};
pub use run_store::RunStore;
pub use run_timeline::{RunTimeline, Segment, SegmentKind, TimelineProject};
pub use stack_lock::{host_name, StackLock};
pub use success_index::{StackSuccesses, SuccessIndex};
pub use timeline_recorder::TimelineRecorder;
