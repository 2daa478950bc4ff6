//! `--resume` checked against the stacks themselves: Pulumi's `stack history` of every project,
//! which sees every checkout sharing the backend and every `pulumi` run by hand.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::error::{Result, UserError};
use crate::graph::NodeIndex;
use crate::history::ResumePoint;
use crate::plan::Operation;
use crate::pulumi::stack_history::{read_stack_history, StackHistory, StackHistoryError};
use crate::pulumi::{Backend, ChildEnvironment, PulumiManifest};

/// One stack of the provider (projects sharing a `dir` share it) and what its history says.
struct StackEntries {
    /// The projects that run on this stack.
    projects: Vec<String>,
    /// `Ok(None)`: the stack does not exist.
    history: std::result::Result<Option<StackHistory>, StackHistoryError>,
}

/// Every stack's history, read side by side (one `pulumi` each).
fn read_all(pulumi: &Path, environment: &ChildEnvironment, loaded: &LoadedProvider, stack: &str) -> Vec<StackEntries> {
    let mut folders: Vec<(String, Vec<String>)> = Vec::new();
    for project in loaded.graph.projects() {
        let folder = project.stack_folder().to_string();
        match folders.iter_mut().find(|(known, _)| *known == folder) {
            Some((_, projects)) => projects.push(project.path.to_string()),
            None => folders.push((folder, vec![project.path.to_string()])),
        }
    }
    let backend = Backend::from_environment(environment);
    let read = |folder: &str| {
        let dir = loaded.provider.projects_root.join(folder);
        let manifest = PulumiManifest::load(&dir)?;
        let qualified = backend.qualified_stack(&manifest.name, stack);
        read_stack_history(pulumi, environment, &dir, &qualified)
    };
    // A few at a time: each is a whole `pulumi` process.
    let mut entries = Vec::with_capacity(folders.len());
    for batch in folders.chunks(4) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = batch.iter().map(|(folder, _)| scope.spawn(|| read(folder))).collect();
            for ((_, projects), handle) in batch.iter().zip(handles) {
                let history = handle
                    .join()
                    .unwrap_or_else(|_| Err(StackHistoryError::Internal("reading the stack history failed".into())));
                entries.push(StackEntries { projects: projects.clone(), history });
            }
        });
    }
    entries
}

fn seconds(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH).map(|since| since.as_secs_f64()).unwrap_or_default()
}

fn when(time: Option<SystemTime>) -> String {
    time.map_or_else(|| "at an unknown time".into(), |at| format!("at {}", humantime::format_rfc3339_seconds(at)))
}

/// Checks that nothing but `point`'s own runs changed any stack since they started; otherwise
/// refuses, naming each change. Stacks whose history cannot be read are named in a warning.
pub(crate) fn check_resume_point(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    point: &ResumePoint,
) -> Result<()> {
    let environment = ChildEnvironment::build(std::env::vars(), &run.stack.environment, &settings.root);
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment)?;
    let latest = point.latest();
    let mut changes = Vec::new();
    for stack in read_all(&pulumi, &environment, loaded, &run.stack.stack) {
        let names: Vec<&str> = stack.projects.iter().map(String::as_str).collect();
        let history = match stack.history {
            Ok(Some(history)) => history,
            Ok(None) => {
                // An `up` that succeeded here left a stack: someone removed it since.
                let deployed =
                    names.iter().any(|name| latest.get(*name) == Some(&crate::history::ProjectState::Succeeded));
                if point.operation == Operation::Up && deployed {
                    changes.push(format!("`{}`: its stack was removed", names[0]));
                }
                continue;
            }
            Err(err) => {
                let reason = crate::error::ErrorChain(&err);
                crate::text::stderr_line!("warning: `{}`: cannot check what changed since: {reason}", names[0]);
                continue;
            }
        };
        for update in &history.updates {
            let (Some(started), ended) = (update.started.map(seconds), update.ended.map(seconds)) else { continue };
            if !update.kind.changes_stack() || started < point.since() - 2.0 {
                continue;
            }
            if !point.explains(&names, update.operation(), started, ended) {
                changes.push(format!(
                    "`{}`: {} {} {} (not by a run of this working copy)",
                    names[0],
                    update.kind.as_str(),
                    update.result.as_str(),
                    when(update.ended.or(update.started)),
                ));
            }
        }
    }
    if changes.is_empty() {
        return Ok(());
    }
    Err(UserError::ResumeSuperseded { resumed: runs_text(point), changes, command: plain_command(run, loaded) })
}

fn runs_text(point: &ResumePoint) -> String {
    let ids: Vec<String> = point.run_ids().iter().map(|id| format!("`{id}`")).collect();
    format!("run {}", ids.join(", "))
}

/// The same operation, without `--resume`.
pub(crate) fn plain_command(run: &RunSettings, loaded: &LoadedProvider) -> String {
    format!("runner {} --provider {} --stack {}", run.operation, loaded.provider.name, run.stack.stack)
}

/// `--resume` when this working copy has no record of the stack: the projects whose latest
/// `operation` in the stack history did not succeed, or that have none. Refused when another
/// operation changed a stack after the oldest of those latest entries: what is pending may rest
/// on what it undid. `None` when the backend is this copy's own (nothing ran here).
pub(crate) fn unfinished_in_backend(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
) -> Result<Option<Vec<NodeIndex>>> {
    let environment = ChildEnvironment::build(std::env::vars(), &run.stack.environment, &settings.root);
    if !crate::pulumi::stack_history::backend_is_shared(&environment) {
        return Ok(None);
    }
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment)?;
    let operation = run.operation;
    let stacks = read_all(&pulumi, &environment, loaded, &run.stack.stack);
    let histories: Vec<(&StackEntries, Option<&StackHistory>)> =
        stacks.iter().map(|stack| (stack, stack.history.as_ref().ok().and_then(Option::as_ref))).collect();
    let oldest_latest = histories.iter().filter_map(|(_, history)| (*history)?.latest_of(operation)?.started).min();
    let mut changes = Vec::new();
    if let Some(since) = oldest_latest {
        for (stack, history) in &histories {
            let later = history.iter().flat_map(|history| &history.updates).filter(|update| {
                update.kind.changes_stack()
                    && update.operation() != Some(operation)
                    && update.started.is_some_and(|started| started > since)
            });
            for update in later {
                changes.push(format!(
                    "`{}`: {} {} {}",
                    stack.projects[0],
                    update.kind.as_str(),
                    update.result.as_str(),
                    when(update.ended.or(update.started))
                ));
            }
        }
    }
    if !changes.is_empty() {
        let resumed = format!("the `{operation}` in the stack history");
        return Err(UserError::ResumeSuperseded { resumed, changes, command: plain_command(run, loaded) });
    }
    let unfinished = histories
        .iter()
        .filter(|(_, history)| match history.and_then(|history| history.latest_of(operation)) {
            Some(latest) => !latest.succeeded(),
            // A destroy never run leaves nothing to resume; anything else never run is undone.
            None => !matches!(operation, Operation::Destroy | Operation::Refresh),
        })
        .flat_map(|(stack, _)| stack.projects.iter())
        .filter_map(|path| loaded.graph.node_of(&crate::provider::ProjectPath::new(path)))
        .filter(|&node| !loaded.graph.project(node).only_as_prerequisite)
        .collect();
    Ok(Some(unfinished))
}
