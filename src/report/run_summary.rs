use std::fmt::Write;
use std::time::{Duration, SystemTime};

use super::Reporter;
use crate::execute::{ExecutionEvent, InstalledKubeconfig, ProjectReport, ProjectResult, RunInfo};

/// Collects the run as it happens; the end-of-run table and the report files are drawn from it.
#[derive(Debug, Default, Clone)]
pub(crate) struct RunSummary {
    pub info: Option<RunInfo>,
    pub reports: Vec<ProjectReport>,
    pub finished: Option<SystemTime>,
    pub interrupted: bool,
    /// Contexts the `on_success` hooks installed, in the order they were.
    pub kubeconfigs: Vec<InstalledKubeconfig>,
    /// Parts of the runner that failed during the run (a reporter, the forecast), contained so
    /// the run still ended and was recorded; any of them fails the run.
    pub faults: Vec<String>,
    /// What a reporter could not write (the run history, a log), from its `finish`.
    pub unwritten: Vec<String>,
}

impl Reporter for RunSummary {
    fn on_event(&mut self, event: &ExecutionEvent) {
        match event {
            ExecutionEvent::RunStarted(info) => self.info = Some(info.clone()),
            ExecutionEvent::ProjectFinished(report) => self.reports.push(report.clone()),
            ExecutionEvent::KubeconfigInstalled(installed) => self.kubeconfigs.push(installed.clone()),
            ExecutionEvent::RunFinished { at, interrupted } => {
                self.finished = Some(*at);
                self.interrupted = *interrupted;
            }
            _ => {}
        }
    }
}

impl RunSummary {
    /// Reports in plan order (the order projects were declared), not finish order.
    pub(crate) fn ordered(&self) -> Vec<&ProjectReport> {
        let Some(info) = &self.info else { return self.reports.iter().collect() };
        let planned = info.projects.iter().filter_map(|path| {
            self.reports.iter().find(|report| &report.project == path && report.operation.is_none())
        });
        // Prerequisites that ran on the way come after the plan.
        let extra =
            self.reports.iter().filter(|report| report.operation.is_some() || !info.projects.contains(&report.project));
        planned.chain(extra).collect()
    }

    pub(crate) fn count(&self, result: ProjectResult) -> usize {
        self.reports.iter().filter(|report| report.result == result).count()
    }

    pub(crate) fn all_succeeded(&self) -> bool {
        // An empty report list is success only when nothing was planned.
        let nothing_planned = self.info.as_ref().is_some_and(|info| info.projects.is_empty());
        self.reports.iter().all(|report| report.result.is_done())
            && (!self.reports.is_empty() || nothing_planned)
            && self.faults.is_empty()
    }

    pub(crate) fn wall_time(&self) -> Duration {
        match (&self.info, self.finished) {
            (Some(info), Some(end)) => end.duration_since(info.started).unwrap_or_default(),
            _ => Duration::ZERO,
        }
    }

    /// The table printed at the end: project, result, duration, resource changes.
    pub(crate) fn table(&self) -> String {
        let rows = self.ordered();
        let width = rows.iter().map(|report| report.project.as_str().len()).max().unwrap_or(7).max(7);
        let result_width = rows.iter().map(|report| report.result.as_str().len()).max().unwrap_or(9).max(9);
        let words = crate::execute::ResourceChanges::column_words(self.info.as_ref().map(|info| info.operation));
        let [created, updated, deleted, unchanged] = words.map(|word| word.len().max(7));
        let unchanged = unchanged.max(9);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:width$}  {:result_width$}  {:>8}  {:>created$} {:>updated$} {:>deleted$} {:>unchanged$}",
            "project", "result", "duration", words[0], words[1], words[2], words[3]
        );
        for report in &rows {
            let changes = &report.changes;
            let _ = writeln!(
                out,
                "{:width$}  {:result_width$}  {:>8}  {:>created$} {:>updated$} {:>deleted$} {:>unchanged$}",
                report.project.as_str(),
                report.result.as_str(),
                if report.started.is_some() { format_duration(report.duration) } else { "-".into() },
                changes.created + changes.replaced,
                changes.updated,
                changes.deleted,
                changes.unchanged
            );
        }
        let _ = write!(
            out,
            "{} succeeded, {} failed, {} skipped, {} cancelled",
            self.count(ProjectResult::Succeeded),
            self.count(ProjectResult::Failed),
            self.count(ProjectResult::Skipped),
            self.count(ProjectResult::Cancelled),
        );
        let unchanged = self.count(ProjectResult::Unchanged);
        if unchanged > 0 {
            let _ = write!(out, ", {unchanged} unchanged");
        }
        let not_deployed = self.count(ProjectResult::NotDeployed);
        if not_deployed > 0 {
            let _ = write!(out, ", {not_deployed} not deployed");
        }
        let _ = write!(out, " in {}", format_duration(self.wall_time()));
        out.push('\n');
        out
    }

    /// For each failed project: what Pulumi said, then the end of its log and where the log is
    /// (relative to `cwd`, as the footer's `logs:`).
    pub(crate) fn failures(&self, cwd: Option<&std::path::Path>) -> String {
        let mut out = String::new();
        for report in self.ordered() {
            let Some(failure) = &report.failure else { continue };
            if report.result != ProjectResult::Failed {
                continue;
            }
            let _ = writeln!(out, "error: `{}` failed: {}", report.project, failure.summary);
            if let Some(hint) = &failure.hint {
                let _ = writeln!(out, "  hint: {hint}");
            }
            for diagnostic in failure.diagnostics.iter().skip(1) {
                for line in diagnostic.lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            if failure.diagnostics.is_empty() && !failure.log_tail.is_empty() {
                let _ = writeln!(out, "  last lines of output:");
                for line in failure.log_tail.iter().rev().take(10).collect::<Vec<_>>().into_iter().rev() {
                    let _ = writeln!(out, "  | {line}");
                }
            }
            if let Some(path) = &failure.log_path {
                let _ = writeln!(out, "  full log: {}", super::run_footer::shown(path, cwd));
            }
        }
        out
    }
}

pub(super) fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 60 {
        format!("{}m{:02}s", seconds / 60, seconds % 60)
    } else {
        format!("{:.1}s", duration.as_secs_f64())
    }
}
