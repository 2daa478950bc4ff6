//! Pulumi's locks on the stacks a run will touch (planned projects and their prerequisites),
//! read before anything starts: a lock whose holder is provably gone is removed by the run
//! itself, a live (or unknown) holder stops the run with its name.

use std::collections::BTreeSet;

use crate::provider::{Project, ProjectPath, Provider};
use crate::pulumi::{HolderState, LockListing, PulumiLocks, PulumiManifest};

/// What reading the locks found and did.
#[derive(Debug, Default)]
pub(crate) struct LockSettlement {
    /// One line per lock the run removed because its holder is gone.
    pub removed: Vec<String>,
    /// Locks held by a live or unknown holder: each stops the run.
    pub problems: Vec<String>,
    /// Locks the runner cannot read, and (when not removing) locks the next run will remove.
    pub notes: Vec<String>,
}

/// The planned projects and, transitively, the prerequisites they bring up.
pub(crate) fn with_prerequisites<'a>(provider: &'a Provider, planned: &[&'a Project]) -> Vec<&'a Project> {
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
pub(crate) fn settle_pulumi_locks(
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
            match locks.judge(&lock, remove) {
                HolderState::Gone if remove => match locks.remove(&lock) {
                    Ok(()) => settlement.removed.push(format!(
                        "removed the lock of `{qualified}` left by {}, which is gone",
                        lock.describe()
                    )),
                    Err(err) => {
                        let reason = crate::error::ErrorChain(&err);
                        settlement.problems.push(format!("stack `{qualified}`: {reason}"))
                    }
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::graph::test_provider;
    use crate::provider::{Phase, Prerequisite};
    use crate::pulumi::{Backend, ChildEnvironment};

    fn lock(state: &std::path::Path, project: &str, name: &str, pid: u32, host: &str) -> std::path::PathBuf {
        let dir = state.join(".pulumi/locks/organization").join(project).join("dev");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{name}.json"));
        // A live holder wrote its lock after it started: stamped now; the others long ago.
        let stamp = match pid == std::process::id() {
            true => time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap(),
            false => "2026-11-22T22:05:19Z".to_string(),
        };
        let json = format!(r#"{{"pid":{pid},"username":"me","hostname":"{host}","timestamp":"{stamp}"}}"#);
        std::fs::write(&file, json).unwrap();
        file
    }

    /// Every shape of holder, on a planned project and on a prerequisite the plan does not list:
    /// a run removes only the gone one and names every other; `validate` removes nothing.
    #[test]
    fn a_run_removes_only_gone_holders_and_names_every_other() {
        let dir = tempfile::tempdir().unwrap();
        let mut provider = test_provider(&[("app", Phase::Infrastructure, &[]), ("creds", Phase::Infrastructure, &[])]);
        provider.projects_root = dir.path().join("projects");
        provider.projects[0].prerequisites =
            vec![Prerequisite { project: ProjectPath::new("creds"), succeeded_within: Duration::from_secs(1) }];
        for name in ["app", "creds"] {
            std::fs::create_dir_all(provider.projects_root.join(name)).unwrap();
            std::fs::write(
                provider.projects_root.join(name).join("Pulumi.yaml"),
                format!("name: {name}\nruntime: yaml\n"),
            )
            .unwrap();
        }
        let state = dir.path().join("state");
        let host = crate::history::host_name();
        let dead = lock(&state, "creds", "dead", 999_999_999, &host);
        let live = lock(&state, "app", "live", std::process::id(), &host);
        let remote = lock(&state, "app", "remote", 999_999_999, "another-host");
        let root = crate::config::RepositoryRoot::unchecked(dir.path());
        let environment = ChildEnvironment::build(
            [("PULUMI_BACKEND_URL".to_string(), format!("file://{}", state.display()))],
            &Default::default(),
            &root,
        );
        let backend = Backend::from_environment(&environment);
        let locks = PulumiLocks::new(&backend, &environment);
        let planned = vec![&provider.projects[0]];
        let projects = with_prerequisites(&provider, &planned);
        assert_eq!(projects.len(), 2, "the prerequisite is read too");

        let checked = settle_pulumi_locks(&locks, &provider, &projects, "dev", "runner unlock -s dev", false);
        assert!(checked.removed.is_empty() && dead.exists(), "validate removes nothing");
        assert!(checked.notes.iter().any(|note| note.contains("the next run removes the lock")), "{checked:?}");
        assert_eq!(checked.problems.len(), 2, "{checked:?}");

        let settled = settle_pulumi_locks(&locks, &provider, &projects, "dev", "runner unlock -s dev", true);
        assert_eq!(settled.removed.len(), 1, "{settled:?}");
        assert!(settled.removed[0].contains("`organization/creds/dev` left by `pulumi` pid 999999999 of `me@"));
        assert!(!dead.exists() && live.exists() && remote.exists());
        let problems = settled.problems.join("\n");
        assert!(problems.contains(&format!("pid {} of `me@{host}`", std::process::id())), "{problems}");
        assert!(problems.contains("which still runs"), "{problems}");
        assert!(problems.contains("`me@another-host` since 2026-11-22T22:05:19Z"), "{problems}");
        assert!(problems.contains("`runner unlock -s dev --force`"), "{problems}");
    }
}
