use std::fmt::Write;
use std::path::Path;

use super::run_summary::format_duration;
use super::RunSummary;
use crate::execute::ProjectResult;
use crate::text::{counted, nonzero_counts};

/// The few lines that end every run, after the per-project lines: what happened in total, where
/// the logs are, which kubeconfig contexts were installed where, and on failure the command that
/// continues the run. `resume_command` is that command; `cwd` shortens paths below it.
pub(crate) fn run_footer(summary: &RunSummary, resume_command: &str, cwd: Option<&Path>) -> String {
    footer(summary, resume_command, cwd, false)
}

/// As `run_footer`, for a CI job whose `.runner/` the next job will not have: `--resume` and the
/// log folder mean nothing there, so the last lines (what GitLab and GitHub show of a failed job)
/// name each failed project with Pulumi's own error, and the next step is to re-run the job.
pub(crate) fn ci_job_footer(summary: &RunSummary, cwd: Option<&Path>) -> String {
    footer(summary, "", cwd, true)
}

fn footer(summary: &RunSummary, resume_command: &str, cwd: Option<&Path>, ci_job: bool) -> String {
    let mut out = String::new();
    let operation = summary.info.as_ref().map(|info| info.operation.to_string()).unwrap_or_default();
    let prefix = if summary.interrupted { "interrupted".to_string() } else { operation };
    let _ = writeln!(out, "{prefix}: {} in {}", totals(summary), format_duration(summary.wall_time()));
    if let Some(info) = &summary.info {
        let _ = writeln!(out, "logs: {}", shown(&info.log_dir, cwd));
    }
    for installed in &summary.kubeconfigs {
        let _ = writeln!(
            out,
            "kubeconfig: context `{}` installed in `{}` (from `{}`)",
            installed.context,
            shown(&installed.file, cwd),
            installed.project
        );
    }
    let unfinished = summary.reports.iter().filter(|report| report.result.needs_resume()).count();
    if unfinished > 0 && ci_job {
        for report in summary.ordered() {
            if let (ProjectResult::Failed, Some(failure)) = (report.result, &report.failure) {
                let _ = writeln!(out, "error: `{}` failed: {}", report.project, failure.summary);
                if let Some(hint) = &failure.hint {
                    let _ = writeln!(out, "  hint: {hint}");
                }
            }
        }
        let _ = writeln!(out, "next: fix the cause, then re-run this job");
    } else if unfinished > 0 {
        let _ = writeln!(out, "next: `{resume_command}` runs the {} left", counted(unfinished, "project"));
    }
    out
}

/// `5 succeeded, 1 failed, 2 skipped`: only the results that happened, in a fixed order.
fn totals(summary: &RunSummary) -> String {
    let counts = ProjectResult::ALL.map(|result| (summary.count(result) as u64, result.as_str()));
    let text = nonzero_counts(&counts);
    if text.is_empty() {
        "no project ran".into()
    } else {
        text
    }
}

/// A path below the current folder is shown relative to it: shorter, and still one to open.
/// `path` relative to where the user stands when it is below it: every path a run prints.
pub(super) fn shown(path: &Path, cwd: Option<&Path>) -> String {
    match cwd.and_then(|cwd| path.strip_prefix(cwd).ok()) {
        Some(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}
