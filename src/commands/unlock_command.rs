use super::LoadedProvider;
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::cli::{Settings, StackSettings};
use crate::error::{Result, UserError};
use crate::exit_status::ExitStatus;
use crate::history::{ProjectState, RunStore, StackLock};
use crate::preflight::abandoned_pulumi_locks;
use crate::pulumi::{Backend, ChildEnvironment, PulumiManifest};

/// `runner unlock`: removes the Pulumi locks a runner that died left on the provider's stacks.
/// Refused while another runner holds the stack; on a file backend only locks whose `pulumi`
/// is gone from this host are removed; elsewhere `pulumi cancel` runs, with the environment the
/// runner gives its children, for the projects the last run left cancelled or running.
pub fn unlock(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let command = super::unlock_command(&loaded.provider.name, &stack.stack);
    // Holding the runner's own lock proves no living runner works on this stack meanwhile.
    let _lock = StackLock::acquire(&settings.root.state_dir(), &stack.stack, &command, false)?;
    let environment = ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let last_run = RunStore::new(&settings.root.state_dir()).runs_of(&loaded.provider.name, &stack.stack).pop();
    let mut removed = 0;
    let mut failures = Vec::new();
    for project in loaded.graph.projects() {
        let dir = loaded.provider.dir_of(project);
        let Ok(manifest) = PulumiManifest::load(&dir) else { continue };
        let qualified = backend.qualified_stack(&manifest.name, &stack.stack);
        if backend.is_local() {
            for lock in abandoned_pulumi_locks(&backend, &manifest.name, &stack.stack) {
                let attrs = lock.file.with_extension("json.attrs");
                match std::fs::remove_file(&lock.file) {
                    Ok(()) => {
                        let _ = std::fs::remove_file(attrs);
                        crate::text::stdout_line!(
                            "removed the lock of `{qualified}` left by `pulumi` pid {} (gone)",
                            lock.pid
                        );
                        removed += 1;
                    }
                    Err(err) => failures.push(format!("cannot remove `{}`: {err}", lock.file.display())),
                }
            }
            let held = backend
                .lock_files(&manifest.name, &stack.stack)
                .into_iter()
                .filter(|file| file.extension().is_some_and(|ext| ext == "json"))
                .count();
            if held > 0 {
                crate::text::stderr_line!("warning: `{qualified}` is locked by a `pulumi` that still runs or runs on another host: left alone");
            }
            continue;
        }
        let stopped = last_run
            .as_ref()
            .and_then(|run| run.project(project.path.as_str()))
            .is_some_and(|record| matches!(record.result, ProjectState::Cancelled | ProjectState::Running));
        if !stopped {
            continue;
        }
        let pulumi = super::pulumi_location::find_pulumi(&environment)?;
        let output = ChildProcess::new(pulumi)
            .args(["cancel", "--stack", &qualified, "--yes", "--non-interactive"])
            .current_dir(&dir)
            .env_clear()
            .envs(environment.vars())
            .timeout(QUERY_TIMEOUT)
            .output_blocking(&Cancellation::process());
        if let ChildEnd::SpawnFailed(reason) = &output.end {
            return Err(UserError::Internal(format!("cannot run `pulumi cancel`: {reason}")));
        }
        if output.success() {
            crate::text::stdout_line!("cancelled the update holding `{qualified}`");
            removed += 1;
        } else {
            failures.push(format!(
                "`pulumi cancel --stack {qualified}`: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    if !failures.is_empty() {
        return Err(UserError::Internal(failures.join("\n")));
    }
    if removed == 0 {
        crate::text::stdout_line!("no lock left by a stopped runner on stack `{}`", stack.stack);
    }
    Ok(ExitStatus::Success)
}
