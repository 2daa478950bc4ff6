mod command_hook;
mod kubeconfig_care;
mod kubeconfig_file;
mod process_group_guard;
mod readiness_check;

pub use command_hook::{run_command_hook, CommandHookError};
pub use kubeconfig_care::{back_up_once, kubeconfig_notes, refuse_lossy_rewrite, review_kubeconfig, KubeconfigInstall};
pub use kubeconfig_file::*;
pub use process_group_guard::ProcessGroupGuard;
pub use readiness_check::{wait_until_ready, GateOutcome};
