use std::path::Path;

use serde::Serialize;

use super::RunSummary;
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
pub fn write_json_report(summary: &RunSummary, path: &Path) -> std::io::Result<()> {
    let info = summary.info.as_ref().ok_or_else(|| std::io::Error::other("the run never started"))?;
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
    let mut text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?;
    text.push('\n');
    write_atomically(path, text.as_bytes())
}

/// Temp file in the same folder, then rename: a reader never sees half a report.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut file, bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|err| err.error)?;
    Ok(())
}
