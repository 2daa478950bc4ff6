use crate::cli::{RunSettings, Settings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;

pub fn run(_settings: &Settings, _run: &RunSettings) -> Result<ExitStatus> {
    Err(UserError::Internal("placeholder".into()))
}
