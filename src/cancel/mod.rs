mod cancellation;
mod child_process;
mod process_alive;
mod process_identity;
mod process_signal;
mod signal_escalation;
mod spawn_error;

pub use cancellation::{CancelLevel, Cancellation};
pub use child_process::{ChildEnd, ChildProcess, INTERRUPT_GRACE, OUTPUT_GRACE, QUERY_TIMEOUT};
pub use process_alive::process_alive;
pub use process_identity::{pid_may_live_elsewhere, process_start_time, recorded_process_runs, ProcessIdentity};
pub use process_signal::{process_exists, signal_group, signal_process};
pub use signal_escalation::SignalEscalation;
pub use spawn_error::SpawnError;
