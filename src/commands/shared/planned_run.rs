use std::collections::{BTreeMap, BTreeSet};

use crate::cli::Settings;
use crate::commands::LoadedProvider;
use crate::error::{Result, UserError};
use crate::graph::NodeIndex;
use crate::history::{expected_durations, RunStore};
use crate::plan::{ExecutionPlan, Operation};

/// The plan `show` draws and a run follows: the graph's order, what the history expects each
/// project to take (so the longest chain starts first), and the pools' limits.
pub(crate) fn planned(
    settings: &Settings,
    loaded: &LoadedProvider,
    operation: Operation,
    selected: &BTreeSet<NodeIndex>,
    stack: Option<&str>,
    pool_overrides: &[(String, usize)],
) -> Result<ExecutionPlan> {
    let store = RunStore::new(&settings.root.state_dir());
    let expected = expected_durations(&store, &loaded.provider.name, stack, operation);
    let mut limits: BTreeMap<String, usize> = loaded.provider.pools.clone();
    for (pool, limit) in pool_overrides {
        if !loaded.provider.projects.iter().any(|project| project.pool.as_deref() == Some(pool)) {
            return Err(UserError::Usage(format!(
                "`--pool {pool}={limit}`: no project of provider `{}` is in pool `{pool}`",
                loaded.provider.name
            )));
        }
        limits.insert(pool.clone(), *limit);
    }
    let graph = &loaded.graph;
    Ok(ExecutionPlan::new(graph, operation, selected)
        .with_expected(&|node| expected.get(graph.project(node).path.as_str()).copied())
        .with_pool_limits(limits))
}
