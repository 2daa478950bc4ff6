use std::path::Path;

use serde::Serialize;

use super::RunSummary;
use crate::config::write_atomically;
use crate::error::{Result, UserError};
use crate::execute::ProjectReport;

#[derive(Serialize)]
struct JsonReport<'a> {
    run_id: &'a str,
    provider: &'a str,
    stack: &'a str,
    operation: &'a str,
    succeeded: bool,
    interrupted: bool,
    duration_seconds: f64,
    projects: Vec<&'a ProjectReport>,
}

/// `--report json=FILE`: the run as one JSON document, written atomically.
pub(crate) fn write_json_report(summary: &RunSummary, path: &Path) -> Result<()> {
    write_atomically(path, json_text(summary)?.as_bytes())
}

pub(super) fn json_text(summary: &RunSummary) -> Result<String> {
    let info = summary.info.as_ref().ok_or_else(|| UserError::Internal("the run never started".into()))?;
    let report = JsonReport {
        run_id: &info.run_id,
        provider: &info.provider,
        stack: &info.stack,
        operation: info.operation.as_str(),
        succeeded: summary.all_succeeded(),
        interrupted: summary.interrupted,
        duration_seconds: (summary.wall_time().as_secs_f64() * 1000.0).round() / 1000.0,
        projects: summary.ordered(),
    };
    let mut text = serde_json::to_string_pretty(&report).map_err(|err| UserError::Internal(err.to_string()))?;
    text.push('\n');
    Ok(text)
}
