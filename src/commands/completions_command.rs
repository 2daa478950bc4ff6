use clap::CommandFactory;

use crate::cli::Arguments;
use crate::error::Result;
use crate::exit_status::ExitStatus;

/// `runner completions SHELL`: the completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitStatus> {
    let mut command = Arguments::command();
    clap_complete::generate(shell, &mut command, "runner", &mut std::io::stdout());
    Ok(ExitStatus::Success)
}
