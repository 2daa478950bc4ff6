use std::collections::HashMap;

use petgraph::algo::tarjan_scc;
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

    fn reject_cycles(&self) -> Result<()> {
        let mut cycles: Vec<Vec<NodeIndex>> = tarjan_scc(&self.graph)
            .into_iter()
            .filter(|component| component.len() > 1)
            .map(|component| component.into_iter().map(|node| node.index()).collect())
            .collect();
        cycles.sort_by_key(|component: &Vec<NodeIndex>| component.iter().copied().min());
        let Some(component) = cycles.first() else { return Ok(()) };
        let cycle = self.cycle_within(component);
        let first = cycle[0];
        let mut names: Vec<String> = cycle.iter().map(|&i| self.projects[i].path.to_string()).collect();
        names.push(self.projects[first].path.to_string());
        Err(UserError::Cycle { location: self.projects[first].origin.clone(), cycle: names })
    }

    /// One concrete cycle inside a strongly connected component, following `depends_on`
    /// from the earliest declared project in it.
    fn cycle_within(&self, component: &[NodeIndex]) -> Vec<NodeIndex> {
        let start = *component.iter().min().expect("a component has nodes");
        let mut path = vec![start];
        let mut position: HashMap<NodeIndex, usize> = HashMap::from([(start, 0)]);
        let mut current = start;
        loop {
            let next = self
                .dependencies(current)
                .into_iter()
                .filter(|node| component.contains(node))
                .min()
                .expect("every node of a cycle has a dependency inside it");
            if let Some(&at) = position.get(&next) {
                return path[at..].to_vec();
            }
            position.insert(next, path.len());
            path.push(next);
            current = next;
        }
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
