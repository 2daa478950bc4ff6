//! One runner per working copy and stack: the runner's own lock, and what runners that died while
//! holding it left behind (their `pulumi` children, their runs still marked running). A dead
//! runner is judged by its identity (pid and start tick), never by a pid that came back.

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::error::Result;
use crate::history::{RunStore, StackLock};

/// Takes the stack's lock, and settles what runners that died while holding it left behind.
pub(crate) fn take_stack(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    store: &RunStore,
    command_line: &str,
) -> Result<StackLock> {
    let lock = StackLock::acquire(&settings.root.state_dir(), &run.stack.stack, command_line, run.wait)?;
    if let Some(stale) = &lock.replaced_stale {
        crate::text::stderr_line!("warning: took over the lock of a runner that is gone ({})", stale.describe());
        // Its `pulumi`s may live on and take a stack's lock after this run read the locks.
        let stopped = crate::pulumi::stop_orphaned_children(stale.pid, stale.start_ticks);
        if stopped > 0 {
            crate::text::stderr_line!(
                "stopped {} left running by that runner",
                crate::text::counted_as(stopped, "process", "processes")
            );
        }
    }
    for abandoned in store.settle_abandoned(&loaded.provider.name, &run.stack.stack) {
        crate::text::stderr_line!(
            "warning: run `{}` ({} on stack `{}`) was interrupted before it finished; `runner {} --provider {} --stack {} --resume` continues it",
            abandoned.run_id,
            abandoned.operation,
            abandoned.stack,
            abandoned.operation,
            loaded.provider.name,
            abandoned.stack
        );
    }
    Ok(lock)
}
