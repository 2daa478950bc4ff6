//! After a run: what it changes (or found drifted), its markdown report, the outputs worth
//! showing after `up`, and whether changes make the run fail.

use std::io::Write;
use std::path::Path;

use crate::cli::{ReportTarget, RunSettings};
use crate::commands::shared::stack_outputs::{display_value, OutputReader};
use crate::error::Result;
use crate::execute::ProjectResult;
use crate::history::RunStore;
use crate::plan::Operation;
use crate::report::{write_markdown_report, ChangeReport, RunSummary};

/// Prints the changes after `preview` and `drift`, writes markdown reports, records drift.
/// Returns the report when the run's changes matter to its exit code.
pub(crate) fn report_changes(
    run: &RunSettings,
    summary: &RunSummary,
    store: &RunStore,
) -> Result<Option<ChangeReport>> {
    let markdown: Vec<&Path> = run
        .reports
        .iter()
        .filter_map(|target| match target {
            ReportTarget::Markdown(path) => Some(path.as_path()),
            _ => None,
        })
        .collect();
    let step_summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|value| !value.is_empty());
    let wanted = run.operation.is_preview() || run.expect_no_changes || !markdown.is_empty();
    if !wanted {
        return Ok(None);
    }
    let report = ChangeReport::from_run(summary, &crate::pulumi::read_resource_changes);
    if run.operation.is_preview() {
        crate::text::stdout_text!("{}", report.terminal());
    }
    for path in markdown {
        write_markdown_report(&report, path, false)?;
    }
    if let Some(path) = step_summary.filter(|_| run.operation.is_preview()) {
        write_markdown_report(&report, Path::new(&path), true)?;
    }
    for target in &run.reports {
        if let ReportTarget::Json(path) = target {
            add_resources_to_json_report(&report, path)?;
        }
    }
    if run.operation == Operation::Drift {
        record_drift(&report, summary, store);
    }
    Ok(Some(report))
}

/// The JSON report names each project's changed resources too (`resources`), and whether
/// anything changes (`changes_found`): written by `finish`, completed here.
fn add_resources_to_json_report(report: &ChangeReport, path: &Path) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(()) };
    let Ok(mut json) = serde_json::from_str::<serde_json::Value>(&text) else { return Ok(()) };
    if let Some(projects) = json.get_mut("projects").and_then(|projects| projects.as_array_mut()) {
        for entry in projects.iter_mut() {
            let changes =
                report.projects.iter().find(|p| entry.get("project").and_then(|v| v.as_str()) == Some(&p.project));
            if let (Some(changes), Some(object)) = (changes, entry.as_object_mut()) {
                object.insert("resources".into(), serde_json::to_value(&changes.resources).unwrap_or_default());
            }
        }
    }
    if let Some(object) = json.as_object_mut() {
        object.insert("changes_found".into(), serde_json::Value::Bool(report.has_changes()));
    }
    let mut text =
        serde_json::to_string_pretty(&json).map_err(|err| crate::error::UserError::Internal(err.to_string()))?;
    text.push('\n');
    crate::config::write_atomically(path, text.as_bytes())
}

/// Names the drifted resources of each project in the run's history record.
fn record_drift(report: &ChangeReport, summary: &RunSummary, store: &RunStore) {
    let Some(info) = &summary.info else { return };
    let Some(mut record) = store.run(&info.run_id) else { return };
    for project in &report.projects {
        if let Some(entry) = record.projects.iter_mut().find(|p| p.project == project.project && p.operation.is_none())
        {
            entry.drifted = project
                .resources
                .iter()
                .map(|change| format!("{} {} {}", change.kind.as_str(), change.resource_type, change.name))
                .collect();
        }
    }
    if let Err(err) = store.save(&record) {
        crate::text::stderr_line!("warning: cannot record the drift in the history: {}", err.chain());
    }
}

/// Whether changes turn a successful run into exit code 3, saying why on stderr.
pub(crate) fn changes_fail_the_run(run: &RunSettings, report: Option<&ChangeReport>) -> bool {
    let Some(report) = report else { return false };
    let changed: Vec<&str> = report.projects.iter().filter(|p| p.has_changes()).map(|p| p.project.as_str()).collect();
    if changed.is_empty() {
        return false;
    }
    if run.operation == Operation::Drift {
        crate::text::stderr_line!("{}", crate::report::drift_found(&changed, report.projects.len()));
        return true;
    }
    if run.expect_no_changes {
        crate::text::stderr_line!(
            "error: `--expect-no-changes`, but {} of {} {}: {}",
            changed.len(),
            crate::text::counted(report.projects.len(), "project"),
            if changed.len() == 1 { "has changes" } else { "have changes" },
            changed.join(", ")
        );
        return true;
    }
    false
}

/// A `drift` that found stacks destroyed or never deployed is no clean bill of health: it fails
/// (a `not deployed` project fails the run, exit 1) and says which stacks hold nothing.
pub(crate) fn say_stacks_holding_nothing(run: &RunSettings, summary: &RunSummary) {
    if run.operation != Operation::Drift {
        return;
    }
    let empty: Vec<&str> = summary
        .ordered()
        .into_iter()
        .filter(|report| report.result == ProjectResult::NotDeployed)
        .map(|report| report.project.as_str())
        .collect();
    if !empty.is_empty() {
        crate::text::stderr_line!(
            "drift: {} of {} hold nothing (destroyed, or never deployed): {}",
            empty.len(),
            crate::text::counted(summary.reports.len(), "stack"),
            empty.join(", ")
        );
    }
}

/// After `up`: the outputs the provider marks worth showing (`show_outputs`), secrets masked.
pub(crate) fn print_shown_outputs(reader: &OutputReader<'_>, summary: &RunSummary) {
    let projects: Vec<_> = summary
        .ordered()
        .into_iter()
        .filter(|report| report.result == ProjectResult::Succeeded && report.operation.is_none())
        .filter_map(|report| reader.provider.project(&report.project))
        .filter(|project| !project.show_outputs.is_empty())
        .collect();
    if projects.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "outputs:");
    for result in reader.read_all(&projects) {
        let Some(project) = projects.iter().find(|p| p.path.as_str() == result.project) else { continue };
        match &result.outputs {
            Ok(values) => {
                for name in &project.show_outputs {
                    let shown = values.get(name).map(display_value).unwrap_or_else(|| "(no such output)".into());
                    let _ = writeln!(out, "  {}  {name} = {shown}", result.project);
                }
            }
            Err(message) => {
                crate::text::stderr_line!(
                    "warning: cannot show the outputs of `{}`: {}",
                    result.project,
                    crate::error::ErrorChain(message)
                )
            }
        }
    }
}
