use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;

/// The stacks a run is operating on right now, by program folder (two projects with the same
/// `dir` share a stack). Every operation of a run, a prerequisite's `up` included, holds its
/// stack here first, so within one run no stack is ever operated on twice at once: whoever
/// comes second waits for the first to end.
#[derive(Debug, Clone, Default)]
pub(crate) struct StackBusy {
    stacks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

/// Held while a stack is being operated on; dropping it frees the stack.
pub(crate) struct StackHold {
    _guard: OwnedMutexGuard<()>,
}

impl StackBusy {
    /// The stack of `folder`, at once when it is free, else `None`.
    pub(crate) fn try_hold(&self, folder: &str) -> Option<StackHold> {
        self.slot(folder).try_lock_owned().ok().map(|guard| StackHold { _guard: guard })
    }

    /// The stack of `folder`, once whatever holds it now ended.
    pub(crate) async fn hold(&self, folder: &str) -> StackHold {
        StackHold { _guard: self.slot(folder).lock_owned().await }
    }

    fn slot(&self, folder: &str) -> Arc<tokio::sync::Mutex<()>> {
        // A poisoned map only means another task panicked while inserting: the map is intact.
        let mut stacks = self.stacks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(stacks.entry(folder.to_string()).or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_held_stack_is_busy_until_its_hold_drops() {
        let busy = StackBusy::default();
        let first = busy.try_hold("use-vault").unwrap();
        assert!(busy.try_hold("use-vault").is_none());
        assert!(busy.try_hold("other").is_some(), "other stacks are independent");
        let waiting = tokio::spawn({
            let busy = busy.clone();
            async move { busy.hold("use-vault").await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        waiting.await.unwrap();
    }
}
