use crate::cli::{ReportTarget, RunSettings};
use crate::commands::LoadedProvider;
use crate::error::Result;
use crate::execute::ProjectResult;
use crate::exit_status::ExitStatus;
use crate::pulumi::{Backend, PulumiManifest};
use crate::report::{self, RunSummary};

/// After an interrupted or failed run, a stack may still hold Pulumi's lock. On a file backend
/// the lock files say so; elsewhere, name the command for every project that was stopped.
pub(crate) fn report_stack_locks(loaded: &LoadedProvider, backend: &Backend, stack: &str, summary: &RunSummary) {
    for report in &summary.reports {
        if !matches!(report.result, ProjectResult::Cancelled | ProjectResult::Failed) || report.started.is_none() {
            continue;
        }
        let dir = loaded.provider.project_dir(&report.project);
        let Ok(manifest) = PulumiManifest::load(&dir) else { continue };
        let locked = if backend.is_local() {
            !backend.lock_files(&manifest.name, stack).is_empty()
        } else {
            report.result == ProjectResult::Cancelled
        };
        if locked {
            crate::text::stderr_line!(
                "warning: stack `{}` may still be locked; once no `pulumi` of this run is left, run `{}`",
                backend.qualified_stack(&manifest.name, stack),
                crate::commands::unlock_command(&loaded.provider.name, stack)
            );
        }
    }
}

/// Prints the failures and the table, writes the requested reports, and maps the run to its exit status.
/// The table is data for stdout; on the terminal that already shows a line per project it would
/// only repeat them, so `table_on_stdout` is false there.
pub(crate) fn finish_run(run: &RunSettings, summary: &RunSummary, table_on_stdout: bool) -> Result<ExitStatus> {
    let cwd = std::env::current_dir().ok();
    // A terminal breaks a long message inside a word ("cert|ificate"): wrapped at spaces to its
    // width instead, continued two columns in; the log's own lines stay as Pulumi wrote them, and
    // the log's path stays beside its label, to be copied whole.
    let stderr = console::Term::stderr();
    let width = stderr.is_term().then(|| usize::from(stderr.size().1)).filter(|&width| width >= 20);
    // Line by line, so each `error:` gets the colour rule of every other.
    for line in summary.failures(cwd.as_deref()).lines() {
        let (indent, text) = line.split_at(line.len() - line.trim_start().len());
        let as_written = text.starts_with('|') || text.starts_with("full log:");
        match width {
            Some(width) if line.chars().count() > width && !as_written => {
                for part in crate::text::word_wrap(text, indent, &format!("{indent}  "), width) {
                    crate::text::stderr_line!("{part}");
                }
            }
            _ => crate::text::stderr_line!("{line}"),
        }
    }
    if table_on_stdout {
        crate::text::stdout_text!("{}", summary.table());
    }
    for fault in &summary.faults {
        crate::text::stderr_line!("error: internal fault: {fault}; the results above were still recorded");
    }
    for target in &run.reports {
        match target {
            ReportTarget::Json(path) => report::write_json_report(summary, path)?,
            ReportTarget::Junit(path) => report::write_junit_report(summary, path)?,
            // Written with the resource changes, after the run (`run_changes`).
            ReportTarget::Markdown(_) => {}
        }
    }
    Ok(if summary.interrupted {
        ExitStatus::Interrupted
    } else if summary.all_succeeded() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The run's last lines; in a CI job (whose `.runner/` the next job will not have) they end with
/// each failed project and Pulumi's error, and no `--resume`.
pub(crate) fn print_footer(settings: &crate::cli::Settings, summary: &RunSummary, resume: &str) {
    let cwd = std::env::current_dir().ok();
    let footer = match settings.style.ci_job {
        true => report::ci_job_footer(summary, cwd.as_deref()),
        false => report::run_footer(summary, resume, cwd.as_deref()),
    };
    crate::text::stderr_text!("{footer}");
}
