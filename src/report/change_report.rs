//! What a run changes (or, for `drift`, what changed outside Pulumi), resource by resource:
//! the terminal summary after `preview`/`drift` and the markdown report for pull requests.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use super::RunSummary;
use crate::execute::ProjectResult;
use crate::execute::{ChangeKind, ResourceChange};
use crate::plan::Operation;

/// One project's changes, or why it has none to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ProjectChanges {
    pub project: String,
    pub result: ProjectResult,
    /// Destructive changes first.
    pub resources: Vec<ResourceChange>,
    /// Changes Pulumi counted that no resource event named (a truncated log): never hidden.
    pub unnamed_changes: u64,
    /// Pulumi's error for a failed project; the reason for a skipped or cancelled one.
    pub error: Option<String>,
    /// What a reader must know about a project that succeeded: a preview that read the mock
    /// outputs of an upstream project never deployed, a dependent skipped as unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ProjectChanges {
    pub(crate) fn count(&self, kind: ChangeKind) -> usize {
        self.resources.iter().filter(|change| change.kind == kind).count()
    }

    pub(crate) fn has_changes(&self) -> bool {
        !self.resources.is_empty() || self.unnamed_changes > 0
    }
}

/// Every planned project of one run with its resource changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ChangeReport {
    pub operation: Operation,
    pub provider: String,
    pub stack: String,
    pub projects: Vec<ProjectChanges>,
}

const KINDS: [ChangeKind; 4] = [ChangeKind::Delete, ChangeKind::Replace, ChangeKind::Update, ChangeKind::Create];

impl ChangeReport {
    /// Reads each project's event log in `.runner/logs/<run-id>/` (already masked) with
    /// `read_changes`, the CLI adapter's reader: reports never parse the CLI's formats themselves.
    pub(crate) fn from_run(summary: &RunSummary, read_changes: &dyn Fn(&Path) -> Vec<ResourceChange>) -> Self {
        let info = summary.info.as_ref();
        let log_dir = info.map(|info| info.log_dir.as_path());
        let projects = summary
            .ordered()
            .into_iter()
            .filter(|report| report.operation.is_none())
            .map(|report| {
                let resources = match (log_dir, report.started) {
                    (Some(dir), Some(_)) => read_changes(&event_log(dir, report.project.as_str())),
                    _ => Vec::new(),
                };
                let counted = report.changes.total_changed();
                let unnamed_changes = counted.saturating_sub(resources.len() as u64);
                let error = match report.result {
                    ProjectResult::Succeeded | ProjectResult::Unchanged => None,
                    ProjectResult::Failed => report.failure.as_ref().map(|failure| {
                        let mut text = failure.summary.clone();
                        for diagnostic in failure.diagnostics.iter().skip(1) {
                            text.push('\n');
                            text.push_str(diagnostic);
                        }
                        if failure.diagnostics.is_empty() && !failure.log_tail.is_empty() {
                            let tail: Vec<&str> =
                                failure.log_tail.iter().rev().take(10).rev().map(String::as_str).collect();
                            text.push('\n');
                            text.push_str(&tail.join("\n"));
                        }
                        text
                    }),
                    _ => report.reason.clone(),
                };
                ProjectChanges {
                    project: report.project.to_string(),
                    result: report.result,
                    resources,
                    unnamed_changes,
                    error,
                    note: report.result.is_done().then(|| report.reason.clone()).flatten(),
                }
            })
            .collect();
        Self {
            operation: info.map(|info| info.operation).unwrap_or(Operation::Preview),
            provider: info.map(|info| info.provider.clone()).unwrap_or_default(),
            stack: info.map(|info| info.stack.clone()).unwrap_or_default(),
            projects,
        }
    }

    pub(crate) fn has_changes(&self) -> bool {
        self.projects.iter().any(ProjectChanges::has_changes)
    }

    fn noun(&self) -> (&'static str, &'static str) {
        if self.operation == Operation::Drift {
            ("drifted", "no drift")
        } else {
            ("changes", "no changes")
        }
    }

    /// Printed after the run's table: every changed resource, destructive ones first.
    pub(crate) fn terminal(&self) -> String {
        let mut out = String::new();
        let changed: Vec<&ProjectChanges> = self.projects.iter().filter(|p| p.has_changes()).collect();
        let (noun, none) = self.noun();
        if changed.is_empty() {
            if self.projects.iter().all(|p| p.result.is_done()) {
                let _ = writeln!(out, "{none} in {}", crate::text::counted(self.projects.len(), "project"));
            }
            return out;
        }
        let heading = if self.operation == Operation::Drift { "what drifted" } else { "what changes" };
        let _ = writeln!(out, "{heading}:");
        for project in changed {
            let _ = writeln!(out, "  {} ({})", project.project, counts_text(project, noun));
            let width = project.resources.iter().map(|c| c.resource_type.len()).max().unwrap_or(0);
            for change in &project.resources {
                let _ = write!(
                    out,
                    "    {:2} {:7}  {:width$}  {}",
                    change.kind.symbol(),
                    change.kind.as_str(),
                    change.resource_type,
                    change.name
                );
                if !change.properties.is_empty() {
                    let _ = write!(out, "  [{}]", change.properties.join(", "));
                }
                out.push('\n');
            }
            if project.unnamed_changes > 0 {
                let _ = writeln!(out, "    {} more not named in the event log", project.unnamed_changes);
            }
        }
        out
    }

    /// GitHub-flavoured markdown: per project a table of counts, then each changed resource.
    pub(crate) fn markdown(&self) -> String {
        let mut out = String::new();
        let (noun, none) = self.noun();
        let _ =
            writeln!(out, "## runner {}: {} on stack {}\n", self.operation, code(&self.provider), code(&self.stack));
        if self.projects.is_empty() {
            let _ = writeln!(out, "No project was selected: nothing to {}.", self.operation);
            return out;
        }
        let changed: Vec<&ProjectChanges> = self.projects.iter().filter(|p| p.has_changes()).collect();
        let failed: Vec<&ProjectChanges> =
            self.projects.iter().filter(|p| !p.result.is_done() && !p.has_changes()).collect();
        let unchanged: Vec<&ProjectChanges> =
            self.projects.iter().filter(|p| p.result.is_done() && !p.has_changes()).collect();
        let total: usize = changed.iter().map(|p| p.resources.len() + p.unnamed_changes as usize).sum();
        let verb = if self.operation == Operation::Drift { "drifted in" } else { "change" };
        let did_not_succeed =
            if failed.is_empty() { String::new() } else { format!("; {} did not succeed", failed.len()) };
        if changed.is_empty() {
            // `0 of 6 projects change 0 resources` says nothing twice: say it once.
            let _ = writeln!(
                out,
                "{} in {}{did_not_succeed}.\n",
                capitalized(none),
                crate::text::counted(self.projects.len(), "project")
            );
        } else {
            let _ = writeln!(
                out,
                "{} of {} {verb} {}{did_not_succeed}.\n",
                changed.len(),
                crate::text::counted(self.projects.len(), "project"),
                crate::text::counted(total, "resource"),
            );
        }
        for project in &failed {
            write_failure(&mut out, project);
        }
        for project in &changed {
            let _ = writeln!(out, "### {}: {}\n", code(&project.project), counts_text(project, noun));
            if let Some(note) = &project.note {
                let _ = writeln!(out, "> {}: {note}\n", project.result.as_str());
            }
            let _ = writeln!(out, "| create | update | replace | delete |\n|---:|---:|---:|---:|");
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |\n",
                project.count(ChangeKind::Create),
                project.count(ChangeKind::Update),
                project.count(ChangeKind::Replace),
                project.count(ChangeKind::Delete)
            );
            for change in &project.resources {
                let kind = if change.kind.is_destructive() {
                    format!("**{}** ⚠️", change.kind.as_str().to_uppercase())
                } else {
                    change.kind.as_str().to_string()
                };
                let _ = write!(out, "- {kind} {} ({})", code(&change.name), code(&change.resource_type));
                if !change.properties.is_empty() {
                    let properties: Vec<String> = change.properties.iter().map(|p| code(p)).collect();
                    let _ = write!(out, ": {}", properties.join(", "));
                }
                out.push('\n');
            }
            if project.unnamed_changes > 0 {
                let _ = writeln!(out, "- {} more not named in the event log", project.unnamed_changes);
            }
            if project.result != ProjectResult::Succeeded {
                write_failure(&mut out, project);
            }
            out.push('\n');
        }
        if !unchanged.is_empty() {
            let names: Vec<String> = unchanged
                .iter()
                .map(|p| match &p.note {
                    Some(note) => format!("{} ({} {note})", code(&p.project), p.result.as_str()),
                    None => code(&p.project),
                })
                .collect();
            let _ = writeln!(out, "{} ({}): {}\n", capitalized(none), unchanged.len(), names.join(", "));
        }
        out
    }
}

fn write_failure(out: &mut String, project: &ProjectChanges) {
    let _ = writeln!(out, "### ❌ {} {}\n", code(&project.project), project.result.as_str());
    if let Some(error) = &project.error {
        let fence = "`".repeat(longest_backtick_run(error).max(2) + 1);
        let _ = writeln!(out, "{fence}\n{error}\n{fence}\n");
    }
}

fn counts_text(project: &ProjectChanges, noun: &str) -> String {
    let parts: Vec<String> = KINDS
        .iter()
        .map(|&kind| (kind, project.count(kind)))
        .filter(|(_, count)| *count > 0)
        .map(|(kind, count)| format!("{count} to {}", kind.as_str()))
        .collect();
    if parts.is_empty() {
        format!("{} {noun}", project.unnamed_changes)
    } else {
        parts.join(", ")
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Inline code that survives backticks and pipes in names (tables, lists).
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|").replace('\n', " ");
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// Where the job wrote a project's event log (`a/b` -> `a/b.events.jsonl`).
fn event_log(log_dir: &Path, project: &str) -> std::path::PathBuf {
    log_dir.join(format!("{project}.events.jsonl"))
}

/// Writes the markdown report; with `append`, adds to what is there (`$GITHUB_STEP_SUMMARY`).
pub(crate) fn write_markdown_report(report: &ChangeReport, path: &Path, append: bool) -> crate::error::Result<()> {
    use std::io::Write as _;
    let unwritable =
        |err: std::io::Error| crate::error::UserError::Unwritable { path: path.to_path_buf(), source: err };
    if append {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(unwritable)?;
        file.write_all(report.markdown().as_bytes()).map_err(unwritable)
    } else {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(unwritable)?;
        }
        crate::config::write_atomically(path, report.markdown().as_bytes())
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// `drift found in 1 of 6 projects: infrastructure/network`: what a drift run and a merged drift
/// pipeline say on stderr before exit code 3.
pub(crate) fn drift_found(drifted: &[&str], total: usize) -> String {
    format!("drift found in {} of {}: {}", drifted.len(), crate::text::counted(total, "project"), drifted.join(", "))
}

#[cfg(test)]
#[path = "change_report_tests.rs"]
mod tests;
