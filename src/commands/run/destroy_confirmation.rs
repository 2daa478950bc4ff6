use std::io::Write;

use crate::cli::{RunSettings, Settings};
use crate::commands::LoadedProvider;
use crate::error::{Result, UserError};
use crate::plan::ExecutionPlan;
use crate::prompt::TerminalPrompter;
use crate::text::counted;

/// Before `destroy` in a terminal: the projects that will be destroyed, in order, then the stack
/// name to type, as Pulumi and Terraform ask. Anything but the exact name is a no. Without a
/// terminal `--yes` is required.
pub(crate) fn confirm_destroy(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    plan: &ExecutionPlan,
) -> Result<bool> {
    if !run.interactive {
        return Err(UserError::ConfirmationRequired { operation: "destroy".into() });
    }
    let stack = &run.stack.stack;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "`destroy` deletes every resource of {} of `{}` in stack `{stack}`, dependents first:",
        counted(plan.len(), "project"),
        loaded.provider.name
    );
    for &node in &plan.order {
        let _ = writeln!(err, "  {}", loaded.graph.project(node).path);
    }
    drop(err);
    let prompter = TerminalPrompter::new(settings.style.color);
    prompter.typed_confirmation(&format!("Type the stack name `{stack}` to destroy them"), stack)
}
