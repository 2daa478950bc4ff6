use std::path::{Path, PathBuf};

use crate::cli::MergeFormat;
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::report::MergedReport;

/// `runner report merge`: the reports of a pipeline's jobs as one summary. A job that was
/// skipped left no report: its folder may be missing or empty, which is no error.
pub(super) fn report_merge(format: MergeFormat, inputs: &[PathBuf], expected: &[String]) -> Result<ExitStatus> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries =
                std::fs::read_dir(input).map_err(|err| UserError::Unreadable { path: input.clone(), source: err })?;
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
                .collect();
            found.sort();
            files.extend(found);
        } else if input.exists() || input.extension().is_some_and(|ext| ext == "json") {
            files.push(input.clone());
        }
    }
    let mut merged = MergedReport::default();
    for file in &files {
        let text =
            std::fs::read_to_string(file).map_err(|err| UserError::Unreadable { path: file.clone(), source: err })?;
        merged.add(&file.display().to_string(), &text).map_err(|err| UserError::InvalidFile {
            location: crate::error::Location::file(Path::new(file)),
            message: crate::error::ErrorChain(&err).to_string(),
        })?;
    }
    merged.expect(expected);
    let text = match format {
        MergeFormat::Markdown => merged.markdown(),
        MergeFormat::Junit => {
            merged.junit().map_err(|err| UserError::Internal(crate::error::ErrorChain(&err).to_string()))?
        }
    };
    super::write_data(text.as_bytes())?;
    crate::text::stderr_line!(
        "merged {} ({} failed)",
        crate::text::counted(merged.projects.len(), "project"),
        merged.failed()
    );
    // A drift pipeline's jobs pass on drift so that every project is checked: the summary
    // carries the verdict, with the exit code a local `runner drift` would have had.
    let drifted: Vec<&str> = merged.drifted().iter().map(|project| project.project.as_str()).collect();
    if !drifted.is_empty() {
        crate::text::stderr_line!("{}", crate::report::drift_found(&drifted, merged.projects.len()));
        return Ok(ExitStatus::ChangesFound);
    }
    Ok(ExitStatus::Success)
}
