use std::path::PathBuf;

use super::{Backend, ChildEnvironment, HolderState, LockListing, PulumiLocks, PulumiManifest};
use crate::execute::LockRecheck;

/// The lock of the stack of the project in `dir`, read again after Pulumi said it is locked:
/// a gone (or orphaned, then stopped) holder's lock is removed so the retry can start at once;
/// a zombie counts as gone, so a `pulumi` killed a moment ago does not cost the whole backoff.
pub(super) async fn recheck_lock(
    dir: PathBuf,
    backend: Backend,
    environment: ChildEnvironment,
    stack: String,
) -> LockRecheck {
    tokio::task::spawn_blocking(move || {
        let Ok(manifest) = PulumiManifest::load(&dir) else { return LockRecheck::Unknown };
        let locks = PulumiLocks::new(&backend, &environment);
        let found = match locks.read(&manifest.name, &stack) {
            LockListing::Read(found) => found,
            LockListing::NotKept | LockListing::Unreadable(_) => return LockRecheck::Unknown,
        };
        let mut released = Vec::new();
        let mut held = Vec::new();
        for lock in found {
            match locks.judge(&lock, true) {
                HolderState::Gone => match locks.remove(&lock) {
                    Ok(()) => released.push(format!("removed the lock left by {}, which is gone", lock.describe())),
                    Err(err) => held.push(crate::error::ErrorChain(&err).to_string()),
                },
                other => held.push(format!("held by {}", lock.describe_holder(&other))),
            }
        }
        if !held.is_empty() {
            LockRecheck::Held(held.join("; "))
        } else if released.is_empty() {
            LockRecheck::Released("the lock is released".into())
        } else {
            LockRecheck::Released(released.join("; "))
        }
    })
    .await
    .unwrap_or(LockRecheck::Unknown)
}
