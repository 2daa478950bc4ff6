use std::collections::HashMap;

use petgraph::graph::{DiGraph, NodeIndex as PetIndex};
use petgraph::Direction;

use crate::error::{Result, UserError};
use crate::provider::{Phase, Project, ProjectPath, Provider};

pub type NodeIndex = usize;

/// The provider's projects as a dependency graph: an edge runs from a dependency to its dependent.
///
/// Node indexes are declaration order, which breaks ties everywhere so plans are deterministic.
#[derive(Debug, Clone)]
pub struct ProjectGraph {
    projects: Vec<Project>,
    graph: DiGraph<NodeIndex, ()>,
}

impl ProjectGraph {
    /// Validates the dependencies and builds the graph. Pure: no file system access.
    pub fn build(provider: &Provider) -> Result<Self> {
        let index: HashMap<&ProjectPath, NodeIndex> =
            provider.projects.iter().enumerate().map(|(i, project)| (&project.path, i)).collect();
        let known: Vec<String> = provider.projects.iter().map(|project| project.path.to_string()).collect();
        let mut graph: DiGraph<NodeIndex, ()> =
            DiGraph::with_capacity(provider.projects.len(), provider.projects.len() * 2);
        for i in 0..provider.projects.len() {
            graph.add_node(i);
        }
        for (i, project) in provider.projects.iter().enumerate() {
            for (position, dependency) in project.depends_on.iter().enumerate() {
                let location =
                    project.dependency_origins.get(position).cloned().unwrap_or_else(|| project.origin.clone());
                if dependency == &project.path {
                    return Err(UserError::SelfDependency { location, project: project.path.to_string() });
                }
                let Some(&j) = index.get(dependency) else {
                    return Err(UserError::UnknownDependency {
                        location,
                        project: project.path.to_string(),
                        dependency: dependency.to_string(),
                        suggestion: crate::provider::nearest_name(dependency.as_str(), &known),
                    });
                };
                let target = &provider.projects[j];
                if project.phase == Phase::Infrastructure && target.phase == Phase::Kubernetes {
                    return Err(UserError::PhaseInversion {
                        location,
                        project: project.path.to_string(),
                        dependency: dependency.to_string(),
                    });
                }
                graph.update_edge(PetIndex::new(j), PetIndex::new(i), ());
            }
        }
        for project in &provider.projects {
            for prerequisite in &project.prerequisites {
                if prerequisite.project == project.path {
                    return Err(UserError::SelfDependency {
                        location: project.origin.clone(),
                        project: project.path.to_string(),
                    });
                }
                if !index.contains_key(&prerequisite.project) {
                    return Err(UserError::UnknownDependency {
                        location: project.origin.clone(),
                        project: project.path.to_string(),
                        dependency: prerequisite.project.to_string(),
                        suggestion: crate::provider::nearest_name(prerequisite.project.as_str(), &known),
                    });
                }
            }
        }
        let built = Self { projects: provider.projects.clone(), graph };
        built.reject_cycles()?;
        Ok(built)
    }

    /// Iterative on purpose: a recursive search overflows the stack on a provider with a chain
    /// thousands of projects deep.
    fn reject_cycles(&self) -> Result<()> {
        let count = self.projects.len();
        let mut remaining: Vec<usize> = (0..count).map(|node| self.dependencies(node).len()).collect();
        let mut queue: Vec<NodeIndex> = (0..count).filter(|&node| remaining[node] == 0).collect();
        let mut removed = vec![false; count];
        while let Some(node) = queue.pop() {
            removed[node] = true;
            for dependent in self.dependents(node) {
                remaining[dependent] -= 1;
                if remaining[dependent] == 0 {
                    queue.push(dependent);
                }
            }
        }
        // What is left lies on a cycle or behind one, and each has a dependency that is left.
        let Some(start) = (0..count).find(|&node| !removed[node]) else { return Ok(()) };
        let next = |node: NodeIndex| {
            self.dependencies(node).into_iter().find(|&d| !removed[d]).expect("every node left has a dependency left")
        };
        let mut position: HashMap<NodeIndex, usize> = HashMap::new();
        let mut path = Vec::new();
        let mut current = start;
        while !position.contains_key(&current) {
            position.insert(current, path.len());
            path.push(current);
            current = next(current);
        }
        // Name the cycle from its earliest declared project, following the same rule.
        let cycle_nodes = &path[position[&current]..];
        let first = *cycle_nodes.iter().min().expect("a cycle has nodes");
        let mut names = vec![self.projects[first].path.to_string()];
        let mut node = next(first);
        while node != first {
            names.push(self.projects[node].path.to_string());
            node = next(node);
        }
        names.push(self.projects[first].path.to_string());
        Err(UserError::Cycle { location: self.projects[first].origin.clone(), cycle: names })
    }

    pub fn len(&self) -> usize {
        self.projects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.projects.is_empty()
    }

    pub fn project(&self, node: NodeIndex) -> &Project {
        &self.projects[node]
    }

    pub fn projects(&self) -> &[Project] {
        &self.projects
    }

    pub fn node_of(&self, path: &ProjectPath) -> Option<NodeIndex> {
        self.projects.iter().position(|project| &project.path == path)
    }

    /// What `node` depends on, in declaration order.
    pub fn dependencies(&self, node: NodeIndex) -> Vec<NodeIndex> {
        self.neighbours(node, Direction::Incoming)
    }

    /// What depends on `node`, in declaration order.
    pub fn dependents(&self, node: NodeIndex) -> Vec<NodeIndex> {
        self.neighbours(node, Direction::Outgoing)
    }

    fn neighbours(&self, node: NodeIndex, direction: Direction) -> Vec<NodeIndex> {
        let mut nodes: Vec<NodeIndex> =
            self.graph.neighbors_directed(PetIndex::new(node), direction).map(|n| n.index()).collect();
        nodes.sort_unstable();
        nodes
    }
}

#[cfg(test)]
mod deep_tests {
    use super::*;
    use crate::provider::Phase::Infrastructure as I;

    #[test]
    fn a_very_deep_chain_builds() {
        let names: Vec<String> = (0..5_000).map(|i| format!("p{i}")).collect();
        let deps: Vec<Vec<&str>> =
            (0..5_000).map(|i| if i == 0 { vec![] } else { vec![names[i - 1].as_str()] }).collect();
        let spec: Vec<(&str, Phase, &[&str])> =
            (0..5_000).map(|i| (names[i].as_str(), I, deps[i].as_slice())).collect();
        let graph = ProjectGraph::build(&crate::graph::test_provider(&spec)).unwrap();
        assert_eq!(graph.len(), 5_000);
    }
}
