mod command_hook;
mod gate_attempt_error;
mod hook_temp_dir;
mod http_client_builder;
mod kubeconfig_care;
mod kubeconfig_entries;
mod kubeconfig_file;
mod kubernetes_gate;
mod kubernetes_readiness;
mod readiness_check;

pub use command_hook::{CommandHook, CommandHookError};
pub use gate_attempt_error::GateAttemptError;
pub use hook_temp_dir::HookTempDir;
pub use http_client_builder::http_client_builder;
pub use kubeconfig_care::{back_up_once, kubeconfig_notes, refuse_lossy_rewrite, review_kubeconfig, KubeconfigInstall};
pub use kubeconfig_entries::{remove_kubeconfig_entries, KubeconfigEntries};
pub use kubeconfig_file::*;
pub use readiness_check::wait_until_ready;
