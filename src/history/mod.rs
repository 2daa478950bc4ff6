mod expected_durations;
mod history_recorder;
mod resume_point;
mod run_record;
mod run_store;
mod run_timeline;
mod stack_lock;
mod success_index;
mod timeline_recorder;

pub(crate) use expected_durations::expected_durations;
pub(crate) use history_recorder::HistoryRecorder;
pub(crate) use resume_point::{ResumeBasis, ResumePoint};
pub(crate) use run_record::{ProjectRecord, ProjectState, RecordedProcess, RunRecord, RunState};
pub(crate) use run_store::RunStore;
pub(crate) use run_timeline::{RunTimeline, Segment, SegmentKind, TimelineProject};
pub(crate) use stack_lock::{host_name, StackLock};
pub(crate) use success_index::{StackSuccesses, SuccessIndex};
pub(crate) use timeline_recorder::TimelineRecorder;
