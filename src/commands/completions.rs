use crate::cli::ShellCompletion;
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;

/// `runner completions SHELL`: the script that registers `runner` as the shell's completer for
/// itself, on stdout.
pub(crate) fn completions(shell: clap_complete::Shell) -> Result<ExitStatus> {
    let program = std::env::args_os().next().unwrap_or_else(|| "runner".into());
    let Some(script) = ShellCompletion::registration(shell, &program) else {
        return Err(UserError::Internal(format!("no completion script for `{shell}`")));
    };
    crate::text::stdout_text!("{script}");
    Ok(ExitStatus::Success)
}
