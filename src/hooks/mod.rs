mod command_hook;
mod kubeconfig_file;

pub use command_hook::{run_command_hook, CommandHookError};
pub use kubeconfig_file::*;
