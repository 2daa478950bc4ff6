//! `runner` deploys a web of Pulumi projects as one unit.
//!
//! Data flows one way: config -> provider -> graph -> plan -> execution events -> reports.
//! Public modules are the ones `fuzz/` and the integration tests use; the rest is the crate's own.

pub(crate) mod backend;
pub(crate) mod cancel;
pub(crate) mod cli;
pub(crate) mod commands;
pub mod config;
pub mod error;
pub(crate) mod execute;
pub(crate) mod exit_status;
pub(crate) mod export;
pub mod graph;
pub(crate) mod history;
pub(crate) mod hooks;
pub(crate) mod http;
pub(crate) mod plan;
pub(crate) mod preflight;
pub(crate) mod prompt;
pub mod provider;
pub(crate) mod pulumi;
pub mod render;
pub(crate) mod report;
pub(crate) mod secrets;
pub(crate) mod text;

/// What the fuzz targets (`fuzz/`) drive of the `pulumi` adapter; not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::execute::OperationProgress;
    pub use crate::pulumi::{parse_event_line, EventLogTail};
}

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Arguments, Command};
use crate::error::UserError;
use crate::exit_status::ExitStatus;

/// Parses `args`, runs the command and maps every outcome to the documented exit codes.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The shell asking for completions, through the script `runner completions` prints.
    if let Some(status) = cli::ShellCompletion::answer(&args) {
        return status.into();
    }
    let arguments = match Arguments::try_parse_from(cli::reorder_mara_options(args)) {
        Ok(arguments) => arguments,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { ExitStatus::Usage.into() } else { ExitStatus::Success.into() };
        }
    };
    let result =
        Command::from_arguments(arguments).and_then(|(settings, command)| commands::execute(command, &settings));
    match result {
        Ok(status) => status.into(),
        Err(err) => {
            report_error(&err);
            err.exit_status().into()
        }
    }
}

fn report_error(err: &UserError) {
    crate::text::stderr_line!("error: {}", err.chain());
    if let Some(hint) = err.hint() {
        crate::text::stderr_line!("hint: {hint}");
    }
}

/// Whether `args` (the program's name first) is a command line `runner` accepts, as it parses
/// it when run: the test of the manual checks every command line the docs show with it.
pub fn accepts_command_line<I, T>(args: I) -> Result<(), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    match Arguments::try_parse_from(cli::reorder_mara_options(args)) {
        Ok(_) => Ok(()),
        // `--help` and `--version` are accepted: they print and exit 0.
        Err(err) if !err.use_stderr() => Ok(()),
        Err(err) => Err(err),
    }
}
