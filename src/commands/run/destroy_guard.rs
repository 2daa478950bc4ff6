use std::collections::BTreeSet;

use crate::cli::RunSettings;
use crate::commands::LoadedProvider;
use crate::error::{Result, UserError};
use crate::graph::NodeIndex;
use crate::plan::{closure, waiting_for};
use crate::provider::Phase;
use crate::pulumi::{Backend, BackendStacks, ChildEnvironment};

/// Before a `destroy` of part of the graph. A kubernetes-phase stack is destroyed through its
/// cluster: a `pulumi destroy` runs no program, but its provider still has to reach the API
/// server. An infrastructure project destroyed while a kubernetes project that waits for it (by
/// declaration or the cluster rule, directly or through others) and needs the cluster is left
/// out and still holds resources strands that stack: nothing can delete its objects any more
/// (MARA's classic failure). Refused, naming each; proven from the backend, and refused as well
/// when the backend cannot say.
pub(crate) fn refuse_stranding_destroy(
    run: &RunSettings,
    loaded: &LoadedProvider,
    selected: &BTreeSet<NodeIndex>,
    environment: &ChildEnvironment,
    backend: &Backend,
) -> Result<()> {
    let graph = &loaded.graph;
    let infrastructure = selected.iter().copied().filter(|&node| graph.project(node).phase == Phase::Infrastructure);
    let readers = closure(graph, infrastructure, |node| waiting_for(graph, node));
    let left_out: Vec<NodeIndex> = readers
        .difference(selected)
        .copied()
        .filter(|&node| graph.project(node).phase == Phase::Kubernetes && graph.project(node).needs_cluster)
        .collect();
    if left_out.is_empty() {
        return Ok(());
    }
    let stacks =
        BackendStacks::new(loaded.provider.clone(), run.stack.stack.clone(), environment.clone(), backend.clone());
    let mut holding = Vec::new();
    for node in left_out {
        let project = graph.project(node);
        match stacks.facts(project) {
            Ok(facts) if facts.is_deployed() => holding.push(format!("`{}` holds {}", project.path, facts.describe())),
            Ok(_) => {}
            Err(err) => holding.push(format!("`{}`: the backend cannot say what it holds ({err})", project.path)),
        }
    }
    if holding.is_empty() {
        return Ok(());
    }
    let destroyed: Vec<String> = selected.iter().map(|&node| format!("`{}`", graph.project(node).path)).collect();
    let only: Vec<String> = selected.iter().map(|&node| format!(" --only {}", graph.project(node).path)).collect();
    Err(UserError::DestroyWouldStrand {
        destroyed: destroyed.join(", "),
        holding,
        command: format!(
            "runner destroy --provider {} --stack {}{} --with-dependents",
            loaded.provider.name,
            run.stack.stack,
            only.concat()
        ),
    })
}
