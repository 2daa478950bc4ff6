mod history_recorder;
mod run_record;
mod run_store;
mod stack_lock;
mod success_index;

pub use history_recorder::HistoryRecorder;
pub use run_record::{ProjectRecord, ProjectState, RunRecord, RunState};
pub use run_store::RunStore;
pub use stack_lock::{LockHolder, StackLock};
pub use success_index::{StackSuccesses, SuccessIndex};
