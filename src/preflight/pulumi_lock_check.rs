//! Pulumi's locks on the stacks a run will touch (planned projects and their prerequisites),
//! read before anything starts: a lock whose holder is provably gone is removed by the run
//! itself, a live (or unknown) holder stops the run with its name.

use std::collections::BTreeSet;

use crate::provider::{Project, ProjectPath, Provider};
use crate::pulumi::{HolderState, LockListing, PulumiLocks, PulumiManifest};

/// What reading the locks found and did.
#[derive(Debug, Default)]
pub struct LockSettlement {
    /// One line per lock the run removed because its holder is gone.
    pub removed: Vec<String>,
    /// Locks held by a live or unknown holder: each stops the run.
    pub problems: Vec<String>,
    /// Locks the runner cannot read, and (when not removing) locks the next run will remove.
    pub notes: Vec<String>,
}

/// The planned projects and, transitively, the prerequisites they bring up.
pub fn with_prerequisites<'a>(provider: &'a Provider, planned: &[&'a Project]) -> Vec<&'a Project> {
    let mut seen: BTreeSet<ProjectPath> = BTreeSet::new();
    let mut pending: Vec<&Project> = planned.to_vec();
    let mut all = Vec::new();
    while let Some(project) = pending.pop() {
        if !seen.insert(project.path.clone()) {
            continue;
        }
        all.push(project);
        pending.extend(project.prerequisites.iter().filter_map(|prerequisite| provider.project(&prerequisite.project)));
    }
    all
}

/// Reads the locks of `projects`' stacks. With `remove`, a lock of a gone holder is removed
/// (an orphaned `pulumi` of a runner that died is stopped first); without, it is only noted.
pub fn settle_pulumi_locks(
    locks: &PulumiLocks,
    provider: &Provider,
    projects: &[&Project],
    stack: &str,
    unlock_command: &str,
    remove: bool,
) -> LockSettlement {
    let mut settlement = LockSettlement::default();
    // One note per reason, not per project: a backend whose locks cannot be read says so once.
    let mut unreadable: Vec<(String, Vec<String>)> = Vec::new();
    for project in projects {
        let Ok(manifest) = PulumiManifest::load(&provider.dir_of(project)) else { continue };
        let qualified = locks.backend.qualified_stack(&manifest.name, stack);
        let found = match locks.read(&manifest.name, stack) {
            LockListing::Read(found) => found,
            LockListing::NotKept => continue,
            LockListing::Unreadable(reason) => {
                match unreadable.iter_mut().find(|(known, _)| *known == reason) {
                    Some((_, stacks)) => stacks.push(qualified),
                    None => unreadable.push((reason, vec![qualified])),
                }
                continue;
            }
        };
        for lock in found {
            let mut state = lock.holder();
            if remove && matches!(state, HolderState::Orphan { .. }) && lock.stop_orphan() {
                state = HolderState::Gone;
            }
            match state {
                HolderState::Gone if remove => match locks.remove(&lock) {
                    Ok(()) => settlement.removed.push(format!(
                        "removed the lock of `{qualified}` left by {}, which is gone",
                        lock.describe()
                    )),
                    Err(reason) => settlement.problems.push(format!("stack `{qualified}`: {reason}")),
                },
                HolderState::Gone => settlement.notes.push(format!(
                    "stack `{qualified}` is locked by {}, which is gone: the next run removes the lock",
                    lock.describe()
                )),
                HolderState::Unknown => settlement.problems.push(format!(
                    "stack `{qualified}` is locked by {}, which the runner cannot see from this host: wait for it, or if it is gone for good run `{unlock_command} --force`",
                    lock.describe()
                )),
                live => settlement.problems.push(format!(
                    "stack `{qualified}` is locked by {}, which still runs: wait for it to finish",
                    lock.describe_holder(&live)
                )),
            }
        }
    }
    for (reason, stacks) in unreadable {
        settlement.notes.push(format!(
            "cannot read the Pulumi locks of `{}`{} ({reason}): their holders are unknown",
            stacks[0],
            if stacks.len() > 1 { format!(" and {} more stacks", stacks.len() - 1) } else { String::new() }
        ));
    }
    settlement
}
