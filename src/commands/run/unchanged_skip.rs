//! Which dependents of a run may be skipped as unchanged, and keeping what each `up` saw.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::error::Result;
use crate::execute::UnchangedRule;
use crate::graph::NodeIndex;
use crate::history::{ProjectState, RunStore};
use crate::plan::Operation;
use crate::provider::ProjectPath;
use crate::pulumi::PulumiManifest;

/// The rule for this run: an `up`'s projects that are there only as dependents may be skipped,
/// unless `--no-skip-unchanged` or their `always_run`.
pub(crate) fn unchanged_rule(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    selected: &BTreeSet<NodeIndex>,
    seeds: &BTreeSet<NodeIndex>,
) -> Result<UnchangedRule> {
    let graph = &loaded.graph;
    let state_dir = settings.root.state_dir();
    let skipping = run.operation == Operation::Up && !run.selection.no_skip_unchanged;
    let interrupted = if skipping { last_up_unfinished(&state_dir, loaded, &run.stack.stack) } else { HashSet::new() };
    let candidates: HashSet<_> = selected
        .difference(seeds)
        .map(|&node| graph.project(node))
        .filter(|project| skipping && !project.always_run && !interrupted.contains(project.path.as_str()))
        .map(|project| project.path.clone())
        .collect();
    // Every project that may `up`, not only the candidates: the fingerprint an `up` keeps must
    // compare what a later run of it as a candidate compares.
    let runs: HashSet<ProjectPath> = selected.iter().map(|&node| graph.project(node).path.clone()).collect();
    let reads = runs
        .iter()
        .filter_map(|path| {
            let node = graph.node_of(path)?;
            let reads = crate::pulumi::program_reads(&loaded.provider.dir_of(graph.project(node)))?;
            Some((path.clone(), reads))
        })
        .collect();
    let mut rule = UnchangedRule::new(candidates, reads);
    rule.referenced = referenced_upstream(loaded, &runs);
    Ok(rule)
}

/// Projects whose latest `up` started but did not succeed (failed, cancelled, or killed with
/// the runner): their stack may be half updated, so what the last success saw no longer holds.
fn last_up_unfinished(state_dir: &std::path::Path, loaded: &LoadedProvider, stack: &str) -> HashSet<String> {
    let mut latest: HashMap<String, (f64, bool)> = HashMap::new();
    for run in RunStore::new(state_dir).runs_of(&loaded.provider.name, stack) {
        for record in &run.projects {
            let Some(started) = record.started else { continue };
            if run.operation_of(record) != Operation::Up || record.result == ProjectState::Unchanged {
                continue;
            }
            let done = record.result == ProjectState::Succeeded;
            if latest.get(&record.project).is_none_or(|(at, _)| started >= *at) {
                latest.insert(record.project.clone(), (started, done));
            }
        }
    }
    latest.into_iter().filter(|(_, (_, done))| !done).map(|(project, _)| project).collect()
}

/// The projects each program (YAML) references as stacks: read from the project folder only, so
/// the `up` that keeps a fingerprint and the run that compares it read the same set.
fn referenced_upstream(
    loaded: &LoadedProvider,
    runs: &HashSet<ProjectPath>,
) -> HashMap<ProjectPath, BTreeSet<ProjectPath>> {
    let graph = &loaded.graph;
    let names: HashMap<String, ProjectPath> = graph
        .projects()
        .iter()
        .filter_map(|project| {
            let manifest = PulumiManifest::load(&loaded.provider.dir_of(project)).ok()?;
            Some((manifest.name, project.path.clone()))
        })
        .collect();
    runs.iter()
        .filter_map(|path| {
            let project = loaded.provider.project(path)?;
            let references = crate::commands::dependency_lint::program_references(&loaded.provider.dir_of(project));
            let read: BTreeSet<ProjectPath> = references
                .iter()
                .filter_map(|name| crate::commands::dependency_lint::referenced_project(name))
                .filter_map(|name| names.get(name).cloned())
                .collect();
            (!read.is_empty()).then(|| (path.clone(), read))
        })
        .collect()
}
