use std::path::Path;

use super::LoadedProvider;
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::cli::{Settings, StackSettings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::history::StackLock;
use crate::pulumi::{Backend, ChildEnvironment, HolderState, LockListing, PulumiLocks, PulumiManifest};

/// `runner unlock [--force]`: removes Pulumi's locks on the provider's stacks. A lock goes
/// when its holder is provably gone (a `pulumi` of this host that is dead or a zombie, or
/// orphaned by a runner that died, stopped first); any other holder is named and the command
/// fails, unless `--force`, which removes the lock after saying who held it and since when.
/// Where locks cannot be read (the Pulumi Cloud, a store without credentials the runner reads)
/// only `--force` acts, through `pulumi cancel`.
pub(crate) fn unlock(settings: &Settings, stack: &StackSettings, force: bool) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let command = unlock_command(&loaded.provider.name, &stack.stack);
    // Holding the runner's own lock proves no living runner of this checkout works on this stack meanwhile.
    let _lock = StackLock::acquire(&settings.root.state_dir(), &stack.stack, &command, false)?;
    let environment = ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let locks = PulumiLocks::new(&backend, &environment);
    let mut removed = 0;
    let mut held = Vec::new();
    let mut failures = Vec::new();
    for project in loaded.graph.projects() {
        let dir = loaded.provider.dir_of(project);
        let Ok(manifest) = PulumiManifest::load(&dir) else { continue };
        let qualified = backend.qualified_stack(&manifest.name, &stack.stack);
        let found = match locks.read(&manifest.name, &stack.stack) {
            LockListing::Read(found) => found,
            unreadable if force => {
                if let LockListing::Unreadable(reason) = unreadable {
                    crate::text::stderr_line!(
                        "cannot read the locks of `{qualified}` ({reason}): running `pulumi cancel`"
                    );
                }
                match pulumi_cancel(&dir, &qualified, &environment) {
                    Ok(()) => {
                        crate::text::stdout_line!("cancelled the update holding `{qualified}`");
                        removed += 1;
                    }
                    Err(err) => failures.push(crate::error::ErrorChain(&err).to_string()),
                }
                continue;
            }
            LockListing::NotKept => continue,
            LockListing::Unreadable(reason) => {
                held.push(format!(
                    "`{qualified}`: the runner cannot read its locks ({reason}), so their holder is unknown"
                ));
                continue;
            }
        };
        for lock in found {
            let state = locks.judge(&lock, true);
            let line = match &state {
                HolderState::Gone => {
                    format!("removed the lock of `{qualified}` left by {}, which is gone", lock.describe())
                }
                _ if force => format!("removed the lock of `{qualified}` held by {}", lock.describe_holder(&state)),
                HolderState::Unknown => {
                    held.push(format!(
                        "`{qualified}` is locked by {}, unknown from this host",
                        lock.describe_holder(&state)
                    ));
                    continue;
                }
                _ => {
                    held.push(format!("`{qualified}` is locked by {}, which still runs", lock.describe_holder(&state)));
                    continue;
                }
            };
            match locks.remove(&lock) {
                Ok(()) => {
                    crate::text::stdout_line!("{line}");
                    removed += 1;
                }
                Err(err) => failures.push(crate::error::ErrorChain(&err).to_string()),
            }
        }
    }
    if !failures.is_empty() {
        return Err(UserError::Internal(failures.join("\n")));
    }
    if !held.is_empty() {
        return Err(UserError::LocksHeld { locks: held, force_command: format!("{command} --force") });
    }
    if removed == 0 {
        crate::text::stdout_line!("no Pulumi lock on stack `{}`", stack.stack);
    }
    Ok(ExitStatus::Success)
}

/// Why `pulumi cancel` did not remove a stack's locks.
#[derive(Debug, thiserror::Error)]
enum CancelError {
    #[error(transparent)]
    NoPulumi(UserError),
    #[error("cannot run `pulumi cancel`: {0}")]
    NotStarted(String),
    #[error("`pulumi cancel --stack {stack}`: {stderr}")]
    Failed { stack: String, stderr: String },
}

/// `pulumi cancel`, with the environment the runner gives its children: where the runner cannot
/// read the locks, the CLI removes them itself.
fn pulumi_cancel(dir: &Path, qualified: &str, environment: &ChildEnvironment) -> std::result::Result<(), CancelError> {
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(environment).map_err(CancelError::NoPulumi)?;
    let output = ChildProcess::new(pulumi)
        .args(["cancel", "--stack", qualified, "--yes", "--non-interactive"])
        .current_dir(dir)
        .env_clear()
        .envs(environment.vars())
        .timeout(QUERY_TIMEOUT)
        .output_blocking(&Cancellation::process());
    if let ChildEnd::SpawnFailed(reason) = &output.end {
        return Err(CancelError::NotStarted(reason.clone()));
    }
    if output.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        Err(CancelError::Failed { stack: qualified.to_string(), stderr })
    }
}

/// The command that removes Pulumi locks left by a runner that died.
pub(crate) fn unlock_command(provider: &str, stack: &str) -> String {
    format!("runner unlock --provider {provider} --stack {stack}")
}
