use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::LoadedProvider;
use crate::graph::NodeIndex;
use crate::plan::closure;
use crate::provider::Phase;
use crate::pulumi::{Backend, PulumiManifest};

const STACK_REFERENCE: &str = "pulumi:pulumi:StackReference";

/// A project that reads another project's outputs without depending on it: a race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndeclaredReference {
    pub message: String,
}

/// Reads each project's StackReferences, from its YAML program and from its deployed state,
/// and reports those that point at a project the provider does not order before it.
pub(crate) fn undeclared_references(
    loaded: &LoadedProvider,
    backend: &Backend,
    stack: &str,
) -> Vec<UndeclaredReference> {
    let graph = &loaded.graph;
    let manifests: Vec<Option<PulumiManifest>> =
        graph.projects().iter().map(|p| PulumiManifest::load(&loaded.provider.dir_of(p)).ok()).collect();
    let by_name: HashMap<&str, NodeIndex> =
        manifests.iter().enumerate().filter_map(|(node, m)| m.as_ref().map(|m| (m.name.as_str(), node))).collect();
    let mut found = Vec::new();
    for (node, manifest) in manifests.iter().enumerate() {
        let Some(manifest) = manifest else { continue };
        let project = graph.project(node);
        let dir = loaded.provider.dir_of(project);
        let mut references: Vec<(String, &str)> =
            program_references(&dir).into_iter().map(|name| (name, "its program")).collect();
        references.extend(
            state_references(backend, &manifest.name, stack).into_iter().map(|name| (name, "its deployed state")),
        );
        if references.is_empty() {
            continue;
        }
        // Only projects that read other stacks need their upstream, which can be the whole graph.
        let ordered_before: BTreeSet<NodeIndex> = closure(graph, graph.dependencies(node), |n| graph.dependencies(n));
        let mut reported = BTreeSet::new();
        for (reference, source) in references {
            let Some(referenced) = referenced_project(&reference) else { continue };
            let Some(&target) = by_name.get(referenced) else { continue };
            let barrier = project.phase == Phase::Kubernetes && graph.project(target).phase == Phase::Infrastructure;
            if target == node || ordered_before.contains(&target) || barrier || !reported.insert(target) {
                continue;
            }
            found.push(UndeclaredReference {
                message: format!(
                    "{}: `{}` reads stack `{reference}` (project `{}`) through a StackReference in {source}, but does not depend on it: add it to `depends_on`, or the two may run in either order",
                    project.origin,
                    project.path,
                    graph.project(target).path
                ),
            });
        }
    }
    found
}

/// `org/project/stack` (or `project/stack`) names the project second to last.
pub(super) fn referenced_project(name: &str) -> Option<&str> {
    let parts: Vec<&str> = name.split('/').collect();
    (parts.len() >= 2).then(|| parts[parts.len() - 2])
}

/// StackReference names in a Pulumi YAML program (`Pulumi.yaml` or `Main.yaml`).
pub(super) fn program_references(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for file in ["Pulumi.yaml", "Main.yaml"] {
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else { continue };
        let Ok(document) = serde_norway::from_str::<serde_norway::Value>(&text) else { continue };
        let Some(resources) = document.get("resources").and_then(|r| r.as_mapping()) else { continue };
        for resource in resources.values() {
            if resource.get("type").and_then(|t| t.as_str()) == Some(STACK_REFERENCE) {
                if let Some(name) = resource.get("properties").and_then(|p| p.get("name")).and_then(|n| n.as_str()) {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

/// StackReference names in the deployed state, when the backend is a folder the runner can read.
pub(super) fn state_references(backend: &Backend, project_name: &str, stack: &str) -> Vec<String> {
    let Some(dir) = backend.local_dir() else { return Vec::new() };
    let path = dir.join(".pulumi").join("stacks").join(project_name).join(format!("{stack}.json"));
    let Ok(bytes) = std::fs::read(path) else { return Vec::new() };
    let Ok(state) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return Vec::new() };
    let resources =
        state.pointer("/checkpoint/latest/resources").and_then(|r| r.as_array()).cloned().unwrap_or_default();
    resources
        .iter()
        .filter(|resource| resource.get("type").and_then(|t| t.as_str()) == Some(STACK_REFERENCE))
        .filter_map(|resource| resource.pointer("/inputs/name").and_then(|n| n.as_str()).map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::referenced_project;

    #[test]
    fn project_is_second_to_last() {
        assert_eq!(referenced_project("organization/local-network/${pulumi.stack}"), Some("local-network"));
        assert_eq!(referenced_project("network/dev"), Some("network"));
        assert_eq!(referenced_project("dev"), None);
    }
}
