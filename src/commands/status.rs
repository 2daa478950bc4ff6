use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use super::LoadedProvider;
use crate::cli::{Settings, StackSettings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunStore};
use crate::pulumi::BackendStacks;

/// `runner status`: for every project of the provider, its last recorded operation and result.
pub(crate) fn status(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let runs = RunStore::new(&settings.root.state_dir()).runs_of(&loaded.provider.name, &stack.stack);
    let environment = crate::pulumi::ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = crate::pulumi::Backend::from_environment(&environment);
    // What the backend holds now: this checkout's records say what happened, not what is there.
    let stacks = BackendStacks::new(loaded.provider.clone(), stack.stack.clone(), environment, backend);
    let mut rows = vec![["project", "last", "result", "ended", "run", "stack", "last drift"].map(String::from)];
    for project in loaded.graph.projects() {
        let facts = stacks.facts(project).ok();
        let shown_stack = facts.map_or_else(|| "-".to_string(), |facts| facts.describe());
        let changed = facts.and_then(|facts| facts.last_update).and_then(|at| at.duration_since(UNIX_EPOCH).ok());
        let changed = changed.map(|at| at.as_secs_f64());
        let last = runs.iter().rev().find_map(|run| {
            run.project(project.path.as_str())
                .filter(|record| record.result != ProjectState::Pending)
                .map(|record| (run, record))
        });
        let path = project.path.to_string();
        rows.push(match last {
            Some((run, record)) => {
                let ended = record
                    .ended
                    .map(|at| {
                        humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs_f64(at.max(0.0))).to_string()
                    })
                    .unwrap_or_else(|| "-".into());
                let drift = match facts {
                    Some(facts) if !facts.is_deployed() => "-".into(),
                    _ => super::drift_status::last_drift(&runs, project.path.as_str(), changed),
                };
                [
                    path,
                    run.operation.to_string(),
                    record.result.to_string(),
                    ended,
                    run.run_id.clone(),
                    shown_stack,
                    drift,
                ]
            }
            // This copy never ran it; another one sharing the backend may have.
            None => match backend_status(settings, stack, &loaded, &project.path) {
                Some((operation, result, ended)) => {
                    [path, operation, result, ended, "-".into(), shown_stack, "(backend)".into()]
                }
                None => [path, "-".into(), "never run".into(), "-".into(), "-".into(), shown_stack, "-".into()],
            },
        });
    }
    let columns = console::Term::stdout().is_term().then(|| usize::from(console::Term::stdout().size().1));
    let mut out = std::io::stdout().lock();
    for line in fitted_table(&rows, columns) {
        let _ = writeln!(out, "{line}");
    }
    Ok(ExitStatus::Success)
}

/// The newest entry of the project's stack history on a shared backend, as `(operation, result, ended)`.
fn backend_status(
    settings: &Settings,
    stack: &StackSettings,
    loaded: &LoadedProvider,
    project: &crate::provider::ProjectPath,
) -> Option<(String, String, String)> {
    let environment = crate::pulumi::ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    if !crate::pulumi::stack_history::backend_is_shared(&environment) {
        return None;
    }
    // The `pulumi` runs use: the run's PATH, not the runner's.
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment).ok()?;
    let history =
        crate::pulumi::stack_history::project_history(&pulumi, &environment, &loaded.provider, project, &stack.stack)?;
    let latest = history.latest()?;
    let ended = latest.ended.map(|at| humantime::format_rfc3339_seconds(at).to_string()).unwrap_or_else(|| "-".into());
    Some((latest.kind.as_str().to_string(), latest.result.as_str().to_string(), ended))
}

/// The rows as columns two spaces apart, in at most `columns` when a terminal is that wide: the
/// run column goes first (`history` lists the runs), then the time, then the stack (`runner outputs`
/// reads it), then the last column is cut.
fn fitted_table(rows: &[[String; 7]], columns: Option<usize>) -> Vec<String> {
    let widths = |index: usize| rows.iter().map(|row| console::measure_text_width(&row[index])).max().unwrap_or(0);
    let total = |kept: &[usize]| kept.iter().map(|&index| widths(index) + 2).sum::<usize>() - 2;
    let mut kept: Vec<usize> = (0..7).collect();
    for dropped in [4, 3, 5] {
        // The last column needs a few readable words; it is cut to the rest.
        let needed = total(&kept) - widths(6) + widths(6).min(16);
        if columns.is_some_and(|columns| needed > columns) {
            kept.retain(|&index| index != dropped);
        }
    }
    rows.iter()
        .map(|row| {
            let mut line = String::new();
            for (position, &index) in kept.iter().enumerate() {
                if position + 1 == kept.len() {
                    let room = columns.map_or(usize::MAX, |columns| columns.saturating_sub(line.chars().count()));
                    line.push_str(&crate::text::fit_reason(&row[index], room));
                } else {
                    line.push_str(&format!("{:width$}  ", row[index], width = widths(index)));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::fitted_table;

    #[test]
    fn a_terminal_gets_the_table_in_its_width_and_a_pipe_gets_every_column() {
        let run = "20261124T072858Z-4f2a9c1e".to_string();
        let row = |project: &str, drift: String| {
            [project, "drift", "succeeded", "2026-11-24T07:28:58Z", run.as_str(), "12 resources", drift.as_str()]
                .map(String::from)
        };
        let rows = vec![
            ["project", "last", "result", "ended", "run", "stack", "last drift"].map(String::from),
            row("kubernetes/applications/sirius", format!("drifted (2): update aws:ec2/vpc:Vpc main, ... ({run})")),
            row("infrastructure/kubeconfig", format!("no drift ({run})")),
        ];
        for columns in [60, 80, 120, 200] {
            for line in fitted_table(&rows, Some(columns)) {
                assert!(console::measure_text_width(&line) <= columns, "{line:?} at {columns}");
            }
        }
        assert!(fitted_table(&rows, None).iter().all(|line| line.contains(&run) || line.starts_with("project")));
    }
}
