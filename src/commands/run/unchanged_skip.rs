//! Which dependents of a run may be skipped as unchanged, and keeping what each `up` saw.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::error::Result;
use crate::execute::{ProjectResult, UnchangedRule};
use crate::graph::NodeIndex;
use crate::history::{repository_salt, ProjectState, RunStore, SeenIndex};
use crate::plan::Operation;
use crate::provider::ProjectPath;
use crate::pulumi::{Backend, PulumiManifest};
use crate::report::RunSummary;

/// The rule for this run: an `up`'s projects that are there only as dependents may be skipped,
/// unless `--no-skip-unchanged` or their `always_run`.
pub fn unchanged_rule(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    selected: &BTreeSet<NodeIndex>,
    seeds: &BTreeSet<NodeIndex>,
    backend: &Backend,
) -> Result<UnchangedRule> {
    let graph = &loaded.graph;
    let state_dir = settings.root.state_dir();
    let salt = repository_salt(&state_dir)?;
    let skipping = run.operation == Operation::Up && !run.selection.no_skip_unchanged;
    let interrupted = if skipping { last_up_unfinished(&state_dir, loaded, &run.stack.stack) } else { HashSet::new() };
    let candidates: HashSet<_> = selected
        .difference(seeds)
        .map(|&node| graph.project(node))
        .filter(|project| skipping && !project.always_run && !interrupted.contains(project.path.as_str()))
        .map(|project| project.path.clone())
        .collect();
    let reads = candidates
        .iter()
        .filter_map(|path| {
            let node = graph.node_of(path)?;
            let reads = crate::pulumi::program_reads(&loaded.provider.dir_of(graph.project(node)))?;
            Some((path.clone(), reads))
        })
        .collect();
    let paths: Vec<_> = graph.projects().iter().map(|project| project.path.clone()).collect();
    let seen = SeenIndex::load(&state_dir, &run.stack.stack).of_provider(&loaded.provider.name, &paths);
    let mut rule = UnchangedRule::new(salt, candidates, reads, seen);
    rule.referenced = referenced_upstream(loaded, backend, &run.stack.stack, &rule.candidates);
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

/// The projects each candidate's program (YAML) or deployed state references as stacks.
fn referenced_upstream(
    loaded: &LoadedProvider,
    backend: &Backend,
    stack: &str,
    candidates: &HashSet<ProjectPath>,
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
    candidates
        .iter()
        .filter_map(|path| {
            let project = loaded.provider.project(path)?;
            let dir = loaded.provider.dir_of(project);
            let own = PulumiManifest::load(&dir).ok()?.name;
            let mut references = crate::commands::dependency_lint::program_references(&dir);
            references.extend(crate::commands::dependency_lint::state_references(backend, &own, stack));
            let read: BTreeSet<ProjectPath> = references
                .iter()
                .filter_map(|name| crate::commands::dependency_lint::referenced_project(name))
                .filter_map(|name| names.get(name).cloned())
                .collect();
            (!read.is_empty()).then(|| (path.clone(), read))
        })
        .collect()
}

/// Keeps what each successful `up` (or `refresh`) of the run saw; under the stack's lock.
pub fn save_seen(settings: &Settings, run: &RunSettings, loaded: &LoadedProvider, summary: &RunSummary) -> Result<()> {
    let fresh: Vec<_> = summary
        .reports
        .iter()
        .filter(|report| report.result == ProjectResult::Succeeded)
        .filter_map(|report| Some((report.project.clone(), report.seen.clone()?)))
        .collect();
    if fresh.is_empty() {
        return Ok(());
    }
    let state_dir = settings.root.state_dir();
    let mut index = SeenIndex::load(&state_dir, &run.stack.stack);
    for (project, seen) in fresh {
        index.record(&loaded.provider.name, &project, seen);
    }
    index.save(&state_dir, &run.stack.stack)
}
