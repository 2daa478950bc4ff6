use std::collections::BTreeSet;

use crate::commands::LoadedProvider;
use crate::error::{Result, UserError};
use crate::graph::NodeIndex;
use crate::preflight::{settle_pulumi_locks, with_prerequisites};
use crate::pulumi::{
    remove_stale_temporary_files, repair_torn_checkpoint, Backend, ChildEnvironment, PulumiLocks, PulumiManifest,
};

/// Before a run starts anything, and while it holds the runner's stack lock: Pulumi's locks on
/// the planned projects' stacks and their prerequisites'. Locks whose holder is provably gone
/// (a killed runner's `pulumi`) are removed, one stderr line each, and returned for the run's
/// record; any other holder stops the run here, named. Then a checkpoint a killed `pulumi` left
/// unreadable (a torn attributes sidecar) is mended, said and recorded the same way.
pub(crate) fn recover_pulumi_locks(
    loaded: &LoadedProvider,
    stack: &str,
    environment: &ChildEnvironment,
    backend: &Backend,
    selected: &BTreeSet<NodeIndex>,
) -> Result<Vec<String>> {
    let planned: Vec<_> = selected.iter().map(|&node| loaded.graph.project(node)).collect();
    let projects = with_prerequisites(&loaded.provider, &planned);
    let locks = PulumiLocks::new(backend, environment);
    let unlock = crate::commands::unlock_command(&loaded.provider.name, stack);
    let settlement = settle_pulumi_locks(&locks, &loaded.provider, &projects, stack, &unlock, true);
    for line in &settlement.removed {
        crate::text::stderr_line!("{line}");
    }
    for note in &settlement.notes {
        crate::text::stderr_line!("note: {note}");
    }
    if !settlement.problems.is_empty() {
        return Err(UserError::PreflightFailed { problems: settlement.problems });
    }
    // No live holder is left on these stacks: what a killed `pulumi` tore can be mended now.
    let mut recovered = settlement.removed;
    for project in &projects {
        let Ok(manifest) = PulumiManifest::load(&loaded.provider.dir_of(project)) else { continue };
        if let Some(line) = repair_torn_checkpoint(backend, &manifest.name, stack) {
            crate::text::stderr_line!("{line}");
            recovered.push(line);
        }
        // Litter, not damage: said, but not recorded as a recovery.
        if let Some(line) = remove_stale_temporary_files(backend, &manifest.name, stack) {
            crate::text::stderr_line!("{line}");
        }
    }
    Ok(recovered)
}
