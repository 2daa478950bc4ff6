use crate::graph::NodeIndex;

use super::LoadedProvider;
use crate::cli::RunSettings;
use crate::pulumi::stack_history::{backend_is_shared, project_history};
use crate::pulumi::ChildEnvironment;

/// `--resume` when this working copy has no record of the stack: the projects whose latest
/// `operation` in the shared backend's stack history did not succeed, or that have none.
/// `None` when the backend is this copy's own or `pulumi` cannot be found.
pub fn unfinished_in_backend(run: &RunSettings, loaded: &LoadedProvider) -> Option<Vec<NodeIndex>> {
    let root = crate::config::RepositoryRoot::unchecked(loaded.provider.file.parent()?.parent()?);
    let environment = ChildEnvironment::build(std::env::vars(), &run.stack.environment, &root);
    if !backend_is_shared(&environment) {
        return None;
    }
    // The `pulumi` runs use: the run's PATH, not the runner's.
    let pulumi = super::pulumi_location::find_pulumi(&environment).ok()?;
    let operation = run.operation.as_str();
    let unfinished = loaded
        .graph
        .projects()
        .iter()
        .filter(|project| !project.only_as_prerequisite)
        .filter(|project| {
            let history = project_history(&pulumi, &environment, &loaded.provider, &project.path, &run.stack.stack);
            match history.as_ref().and_then(|history| history.latest_of(operation)) {
                Some(latest) => !latest.succeeded(),
                // A destroy never run leaves nothing to resume; anything else never run is undone.
                None => operation != "destroy" && operation != "refresh",
            }
        })
        .filter_map(|project| loaded.graph.node_of(&project.path))
        .collect();
    Some(unfinished)
}
