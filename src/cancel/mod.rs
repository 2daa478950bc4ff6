mod cancellation;
mod child_process;
mod process_alive;
mod process_identity;
mod process_signal;
mod signal_escalation;
mod spawn_error;

pub(crate) use cancellation::{CancelLevel, Cancellation};
pub(crate) use child_process::{ChildEnd, ChildProcess, INTERRUPT_GRACE, OUTPUT_GRACE, QUERY_TIMEOUT};
pub(crate) use process_alive::process_alive;
pub(crate) use process_identity::{pid_may_live_elsewhere, process_start_time, recorded_process_runs, ProcessIdentity};
pub(crate) use process_signal::{process_exists, signal_group, signal_process};
pub(crate) use signal_escalation::SignalEscalation;
pub(crate) use spawn_error::SpawnError;
