//! `--affected [REF]`: the projects a git change touches, and why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::cli::Settings;
use crate::commands::affected::git_changes::GitChanges;
use crate::commands::LoadedProvider;
use crate::error::Result;
use crate::graph::NodeIndex;
use crate::plan::Selection;

/// Why each project is affected; `everything` when a file all of them read changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AffectedProjects {
    /// Set when every project is affected: the shared file that changed, as printed.
    pub everything: Option<String>,
    /// Project path -> the first reason found.
    pub projects: BTreeMap<String, String>,
}

/// Resolves `selection`, narrowed by `--affected` when asked (printing what was compared and why).
pub(crate) fn select_with_affected(
    settings: &Settings,
    loaded: &LoadedProvider,
    selection: &Selection,
    stack: Option<&str>,
) -> Result<BTreeSet<NodeIndex>> {
    select_with_seeds(settings, loaded, selection, stack).map(|(selected, _)| selected)
}

/// The selection, and the part of it that is there for itself: what is left is there only as a
/// dependent (`--with-dependents`, or downstream of what `--affected` found changed).
pub(crate) fn select_with_seeds(
    settings: &Settings,
    loaded: &LoadedProvider,
    selection: &Selection,
    stack: Option<&str>,
) -> Result<(BTreeSet<NodeIndex>, BTreeSet<NodeIndex>)> {
    let graph = &loaded.graph;
    let without_dependents = Selection { with_dependents: false, ..selection.clone() };
    let Some(since) = &selection.affected_since else {
        return Ok((
            selection.resolve(graph, &loaded.provider.name)?,
            without_dependents.resolve(graph, &loaded.provider.name)?,
        ));
    };
    let changes = GitChanges::since(settings.root.path(), since)?;
    let shared = shared_files(settings, stack);
    let affected = affected_by(loaded, &shared, &changes.files, &|path| changes.text_at_base(path));
    let mut narrowed = selection.clone();
    narrowed.affected = Some(match &affected.everything {
        Some(_) => loaded.graph.projects().iter().map(|p| p.path.to_string()).collect(),
        None => affected.projects.keys().cloned().collect(),
    });
    let selected = narrowed.resolve(&loaded.graph, &loaded.provider.name)?;
    crate::text::stderr_line!("affected: comparing with {} and uncommitted changes", changes.described_base);
    match &affected.everything {
        Some(reason) => crate::text::stderr_line!("affected: every project, because {reason}"),
        None if affected.projects.is_empty() => crate::text::stderr_line!("affected: no project's files changed"),
        None => {
            for (project, reason) in &affected.projects {
                crate::text::stderr_line!("affected: {project}: {reason}");
            }
        }
    }
    let direct: BTreeSet<&str> = affected.projects.keys().map(String::as_str).collect();
    let dependents: Vec<&str> = selected
        .iter()
        .map(|&node| loaded.graph.project(node).path.as_str())
        .filter(|path| affected.everything.is_none() && !direct.contains(path))
        .collect();
    if !dependents.is_empty() {
        crate::text::stderr_line!(
            "affected: also selected (dependents, or dependencies you asked for): {}",
            dependents.join(", ")
        );
    }
    crate::text::stderr_line!(
        "affected: {} of {} selected",
        selected.len(),
        crate::text::counted(loaded.graph.len(), "project")
    );
    let seeds = match &affected.everything {
        Some(_) => selected.clone(),
        // What changed, and what it needs that was asked for (`--with-dependencies`).
        None => {
            let direct =
                affected.projects.keys().filter_map(|path| graph.node_of(&crate::provider::ProjectPath::new(path)));
            let needed = crate::plan::closure(graph, direct, |node| graph.dependencies(node));
            selected.intersection(&needed).copied().collect()
        }
    };
    Ok((selected, seeds))
}

/// The files every project reads: the environment file and the shared stack file(s).
fn shared_files(settings: &Settings, stack: Option<&str>) -> Vec<PathBuf> {
    let mut files = vec![settings.root.environment_file()];
    match stack {
        Some(stack) => files.push(settings.root.stack_config_file(stack)),
        // Without a stack (`show`), any shared stack file counts.
        None => files.extend(settings.root.stack_names().iter().map(|stack| settings.root.stack_config_file(stack))),
    }
    files
}

/// Pure but for `old_text` (a file's text at the base): what `changed` files affect.
pub(crate) fn affected_by(
    loaded: &LoadedProvider,
    shared: &[PathBuf],
    changed: &[PathBuf],
    old_text: &dyn Fn(&Path) -> Option<String>,
) -> AffectedProjects {
    let changed: Vec<PathBuf> = changed.iter().map(|path| canonical(path)).collect();
    let mut affected = AffectedProjects::default();
    for file in shared {
        let file = canonical(file);
        if changed.contains(&file) {
            let kind = if file.file_name().is_some_and(|name| name == "environment") {
                "the environment file"
            } else {
                "the shared stack file"
            };
            affected.everything = Some(format!("{kind} `{}` changed", display(&file, loaded)));
            return affected;
        }
    }
    // Provider files: the provider's own and every shared set a project comes from.
    let mut provider_files: BTreeSet<PathBuf> = BTreeSet::new();
    provider_files.insert(canonical(&loaded.provider.file));
    provider_files.extend(loaded.provider.projects.iter().map(|project| canonical(&project.origin.path)));
    for file in provider_files.iter().filter(|file| changed.contains(file)) {
        let new_text = std::fs::read_to_string(file).unwrap_or_default();
        match changed_entries(old_text(file).as_deref(), &new_text) {
            EntryChanges::Everything(what) => {
                affected.everything = Some(format!("{what} in the provider file `{}` changed", display(file, loaded)));
                return affected;
            }
            EntryChanges::Projects(paths) => {
                for path in paths {
                    if loaded.provider.projects.iter().any(|project| project.path.as_str() == path) {
                        affected
                            .projects
                            .entry(path.clone())
                            .or_insert_with(|| format!("its entry in `{}` changed", display(file, loaded)));
                    }
                }
            }
        }
    }
    for project in &loaded.provider.projects {
        let dir = canonical(&loaded.provider.dir_of(project));
        if let Some(file) = changed.iter().find(|file| file.starts_with(&dir)) {
            affected
                .projects
                .entry(project.path.to_string())
                .or_insert_with(|| format!("`{}` changed", display(file, loaded)));
        }
    }
    affected
}

enum EntryChanges {
    /// A provider-wide setting changed (or the file cannot be compared): every project.
    Everything(String),
    /// The `[[project]]` and `[[amend]]` entries that differ, by path.
    Projects(Vec<String>),
}

/// Compares a provider file's `[[project]]` and `[[amend]]` entries by path.
fn changed_entries(old: Option<&str>, new: &str) -> EntryChanges {
    let parse = |text: &str| text.parse::<toml::Table>().ok();
    let (Some(old), Some(new)) = (old.and_then(parse), parse(new)) else {
        return match parse(new) {
            // A new file: every entry in it is new.
            Some(new) if old.is_none() => EntryChanges::Projects(entries(&new).into_keys().collect()),
            _ => EntryChanges::Everything("something that cannot be compared".into()),
        };
    };
    let settings = |table: &toml::Table| -> toml::Table {
        table
            .iter()
            .filter(|(key, _)| !matches!(key.as_str(), "project" | "amend" | "description"))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    };
    let (old_settings, new_settings) = (settings(&old), settings(&new));
    if old_settings != new_settings {
        let mut keys: Vec<&String> = old_settings
            .keys()
            .chain(new_settings.keys())
            .filter(|key| old_settings.get(*key) != new_settings.get(*key))
            .collect();
        keys.sort();
        keys.dedup();
        let names: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
        return EntryChanges::Everything(names.join(", "));
    }
    let (old_entries, new_entries) = (entries(&old), entries(&new));
    let changed = new_entries
        .iter()
        .filter(|(path, entry)| old_entries.get(*path) != Some(entry))
        .map(|(path, _)| path.clone())
        .collect();
    EntryChanges::Projects(changed)
}

/// `path` -> every `[[project]]` and `[[amend]]` table naming it.
fn entries(table: &toml::Table) -> BTreeMap<String, Vec<toml::Value>> {
    let mut entries: BTreeMap<String, Vec<toml::Value>> = BTreeMap::new();
    for key in ["project", "amend"] {
        let Some(toml::Value::Array(items)) = table.get(key) else { continue };
        for item in items {
            if let Some(path) = item.get("path").and_then(|path| path.as_str()) {
                entries.entry(path.to_string()).or_default().push(item.clone());
            }
        }
    }
    entries
}

fn canonical(path: &Path) -> PathBuf {
    // A deleted file cannot be canonicalised itself: its folder can.
    if let Ok(path) = path.canonicalize() {
        return path;
    }
    match (path.parent().and_then(|parent| parent.canonicalize().ok()), path.file_name()) {
        (Some(parent), Some(name)) => parent.join(name),
        _ => path.to_path_buf(),
    }
}

/// Relative to the projects root's repository, as people read it.
fn display(path: &Path, loaded: &LoadedProvider) -> String {
    let root = loaded.provider.file.parent().and_then(Path::parent).map(canonical);
    match root.as_deref().and_then(|root| path.strip_prefix(root).ok()) {
        Some(relative) => relative.display().to_string(),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn projects(result: EntryChanges) -> Vec<String> {
        match result {
            EntryChanges::Projects(paths) => paths,
            EntryChanges::Everything(what) => vec![format!("everything: {what}")],
        }
    }

    const OLD: &str = "description = \"x\"\n[[project]]\npath = \"a\"\nphase = \"infrastructure\"\n[[project]]\npath = \"b\"\nphase = \"infrastructure\"\n";

    #[test]
    fn a_changed_project_entry_affects_that_project() {
        let new = OLD.replace(
            "path = \"b\"\nphase = \"infrastructure\"",
            "path = \"b\"\nphase = \"infrastructure\"\ndepends_on = [\"a\"]",
        );
        assert_eq!(projects(changed_entries(Some(OLD), &new)), ["b"]);
    }

    #[test]
    fn a_description_change_affects_nothing_and_a_setting_change_everything() {
        assert!(projects(changed_entries(Some(OLD), &OLD.replace("\"x\"", "\"y\""))).is_empty());
        let new = format!("projects_root = \"other\"\n{OLD}");
        assert_eq!(projects(changed_entries(Some(OLD), &new)), ["everything: `projects_root`"]);
    }

    #[test]
    fn a_new_provider_file_affects_what_it_declares_and_garbage_affects_everything() {
        assert_eq!(projects(changed_entries(None, OLD)), ["a", "b"]);
        assert_eq!(projects(changed_entries(Some(OLD), "[[[")), ["everything: something that cannot be compared"]);
    }

    #[test]
    fn amendments_count_as_entry_changes() {
        let new = format!("{OLD}[[amend]]\npath = \"a\"\ndepends_on = [\"b\"]\n");
        assert_eq!(projects(changed_entries(Some(OLD), &new)), ["a"]);
    }
}
