mod expected_durations;
mod history_recorder;
mod run_record;
mod run_store;
mod stack_lock;

pub use expected_durations::expected_durations;
pub use history_recorder::HistoryRecorder;
pub use run_record::{ProjectRecord, RunRecord, RunState};
pub use run_store::RunStore;
pub use stack_lock::{LockHolder, StackLock};
