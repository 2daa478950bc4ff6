use std::collections::{BTreeSet, VecDeque};

use crate::error::{Result, UserError};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::provider::{nearest_name, ProjectPath};

/// Which part of the graph to run. Pure: resolved against the graph, no I/O.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Start from these projects only (everything when empty).
    pub only: Vec<String>,
    pub with_dependencies: bool,
    pub with_dependents: bool,
    pub exclude: Vec<String>,
    /// This project and everything that depends on it (directly or not).
    pub from: Option<String>,
    /// `--affected [REF]`: the git ref to compare with; empty for the default one.
    pub affected_since: Option<String>,
    /// The projects that change affects (found by `commands::affected_projects`); they and
    /// their dependents narrow the selection.
    pub affected: Option<Vec<String>>,
    /// `--no-skip-unchanged`: dependents run even when nothing they read changed.
    pub no_skip_unchanged: bool,
}

impl Selection {
    /// `provider` names the provider in the hint of an unknown project, so it runs as printed.
    pub(crate) fn resolve(&self, graph: &ProjectGraph, provider: &str) -> Result<BTreeSet<NodeIndex>> {
        let mut selected: BTreeSet<NodeIndex> = if self.only.is_empty() {
            (0..graph.len()).filter(|&node| !graph.project(node).only_as_prerequisite).collect()
        } else {
            self.only.iter().map(|name| node(graph, name, provider)).collect::<Result<_>>()?
        };
        if let Some(affected) = &self.affected {
            let seeds = affected.iter().map(|name| node(graph, name, provider)).collect::<Result<Vec<_>>>()?;
            let reached = closure(graph, seeds, |n| super::waiting_for(graph, n));
            selected = selected.intersection(&reached).copied().collect();
        }
        if let Some(from) = &self.from {
            let start = node(graph, from, provider)?;
            let downstream = closure(graph, [start], |n| super::waiting_for(graph, n));
            selected = if self.only.is_empty() { downstream } else { selected.union(&downstream).copied().collect() };
        }
        if self.with_dependencies {
            selected = closure(graph, selected.iter().copied(), |n| graph.dependencies(n));
        }
        if self.with_dependents {
            selected = closure(graph, selected.iter().copied(), |n| super::waiting_for(graph, n));
        }
        for name in &self.exclude {
            selected.remove(&node(graph, name, provider)?);
        }
        Ok(selected)
    }
}

/// `start` and everything reachable from it through `next`.
pub(crate) fn closure(
    graph: &ProjectGraph,
    start: impl IntoIterator<Item = NodeIndex>,
    next: impl Fn(NodeIndex) -> Vec<NodeIndex>,
) -> BTreeSet<NodeIndex> {
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<NodeIndex> = start.into_iter().collect();
    while let Some(node) = queue.pop_front() {
        if node < graph.len() && seen.insert(node) {
            queue.extend(next(node));
        }
    }
    seen
}

fn node(graph: &ProjectGraph, name: &str, provider: &str) -> Result<NodeIndex> {
    graph.node_of(&ProjectPath::new(name)).ok_or_else(|| {
        let known: Vec<String> = graph.projects().iter().map(|p| p.path.to_string()).collect();
        let hint = nearest_name(name, &known).map(|near| format!(" (did you mean `{near}`?)")).unwrap_or_default();
        UserError::Usage(format!(
            "unknown project `{name}`{hint}: `runner show --provider {provider}` lists the projects"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::test_provider as provider;
    use crate::provider::Phase::Infrastructure as I;

    fn graph() -> ProjectGraph {
        // a -> b -> c, and x -> c; y alone
        ProjectGraph::build(&provider(&[
            ("a", I, &[]),
            ("b", I, &["a"]),
            ("x", I, &[]),
            ("c", I, &["b", "x"]),
            ("y", I, &[]),
        ]))
        .unwrap()
    }

    fn names(graph: &ProjectGraph, nodes: &BTreeSet<NodeIndex>) -> Vec<String> {
        nodes.iter().map(|&n| graph.project(n).path.to_string()).collect()
    }

    fn select(selection: Selection) -> Vec<String> {
        let graph = graph();
        names(&graph, &selection.resolve(&graph, "p").unwrap())
    }

    #[test]
    fn everything_by_default() {
        assert_eq!(select(Selection::default()).len(), 5);
    }

    #[test]
    fn only_with_dependencies() {
        assert_eq!(
            select(Selection { only: vec!["c".into()], with_dependencies: true, ..Default::default() }),
            ["a", "b", "x", "c"]
        );
    }

    #[test]
    fn only_with_dependents() {
        assert_eq!(
            select(Selection { only: vec!["a".into()], with_dependents: true, ..Default::default() }),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn from_takes_everything_downstream() {
        assert_eq!(select(Selection { from: Some("b".into()), ..Default::default() }), ["b", "c"]);
    }

    #[test]
    fn affected_projects_bring_their_dependents_and_combine_with_only_and_exclude() {
        let affected = Some(vec!["b".to_string()]);
        assert_eq!(select(Selection { affected: affected.clone(), ..Default::default() }), ["b", "c"]);
        assert_eq!(
            select(Selection { affected: affected.clone(), with_dependencies: true, ..Default::default() }),
            ["a", "b", "x", "c"]
        );
        assert_eq!(
            select(Selection { affected: affected.clone(), exclude: vec!["c".into()], ..Default::default() }),
            ["b"]
        );
        assert_eq!(
            select(Selection { affected: affected.clone(), only: vec!["c".into(), "y".into()], ..Default::default() }),
            ["c"]
        );
        assert!(select(Selection { affected: Some(Vec::new()), ..Default::default() }).is_empty());
    }

    #[test]
    fn exclude_removes() {
        assert_eq!(select(Selection { exclude: vec!["y".into(), "x".into()], ..Default::default() }), ["a", "b", "c"]);
    }

    #[test]
    fn unknown_names_are_errors_with_suggestions() {
        let graph = graph();
        let err = Selection { only: vec!["bb".into()], ..Default::default() }.resolve(&graph, "p").unwrap_err();
        assert!(err.to_string().contains("unknown project `bb` (did you mean `b`?)"), "{err}");
    }

    /// `--with-dependents`, `--from` and `--affected` reach what is deployed into the cluster
    /// without declaring it, whatever the barrier; a project that needs no cluster, and any
    /// project when no cluster provider is marked, is reached only through what it declares.
    #[test]
    fn following_dependents_follows_the_cluster_rule() {
        use crate::provider::Phase::Kubernetes as K;
        let spec: &[(&str, crate::provider::Phase, &[&str])] =
            &[("net", I, &[]), ("cluster", I, &["net"]), ("registry", I, &[]), ("app", K, &[]), ("image", K, &[])];
        for (marked, strict) in [(true, false), (false, false), (true, true), (false, true)] {
            let mut provider = provider(spec);
            provider.projects[1].provides_cluster = marked;
            provider.projects[4].needs_cluster = false;
            provider.strict_phase_barrier = strict;
            let graph = ProjectGraph::build(&provider).unwrap();
            let resolve = |selection: Selection| names(&graph, &selection.resolve(&graph, "p").unwrap());
            let with = Selection { only: vec!["cluster".into()], with_dependents: true, ..Default::default() };
            let expected = if marked { vec!["app", "cluster"] } else { vec!["cluster"] };
            let mut got = resolve(with);
            got.sort();
            assert_eq!(got, expected, "marked {marked}, strict {strict}");
            let mut affected = resolve(Selection { affected: Some(vec!["net".into()]), ..Default::default() });
            affected.sort();
            let reached = if marked { vec!["app", "cluster", "net"] } else { vec!["cluster", "net"] };
            assert_eq!(affected, reached, "marked {marked}, strict {strict}");
            let registry =
                resolve(Selection { only: vec!["registry".into()], with_dependents: true, ..Default::default() });
            assert!(!registry.contains(&"app".to_string()), "marked {marked}, strict {strict}");
        }
    }
}
