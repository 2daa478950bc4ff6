use std::process::ExitCode;

/// The exit codes `runner` promises to scripts and CI systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything asked for ran and succeeded.
    Success,
    /// A run happened and at least one project failed, was skipped or cancelled.
    Failure,
    /// Usage, configuration or validation error: nothing ran.
    Usage,
    /// Interrupted by Ctrl-C or SIGTERM.
    Interrupted,
    /// Everything succeeded, but `drift` found drift or `--expect-no-changes` found changes.
    ChangesFound,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Interrupted => 130,
            ExitStatus::ChangesFound => 3,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(status.code())
    }
}
