mod command_hook;
mod kubeconfig_file;
mod readiness_check;

pub use command_hook::{run_command_hook, CommandHookError};
pub use kubeconfig_file::*;
pub use readiness_check::{wait_until_ready, GateOutcome};
