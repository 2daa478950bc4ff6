mod command_hook;
mod gate_attempt_error;
mod hook_temp_dir;
mod kubeconfig_care;
mod kubeconfig_entries;
mod kubeconfig_file;
mod kubernetes_gate;
mod kubernetes_readiness;
mod readiness_check;

pub(crate) use command_hook::{CommandHook, CommandHookError};
pub(crate) use gate_attempt_error::GateAttemptError;
pub(crate) use hook_temp_dir::HookTempDir;
pub(crate) use kubeconfig_care::{
    back_up_once, kubeconfig_notes, refuse_lossy_rewrite, review_kubeconfig, KubeconfigInstall,
};
pub(crate) use kubeconfig_entries::{remove_kubeconfig_entries, KubeconfigEntries};
pub(crate) use kubeconfig_file::*;
pub(crate) use readiness_check::wait_until_ready;
