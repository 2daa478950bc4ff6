use super::{undeclared_references, LoadedProvider, StackCheck};
use crate::cli::{Settings, StackSettings};
use crate::error::Result;
use crate::exit_status::ExitStatus;
use crate::pulumi::{Backend, ChildEnvironment};

/// `runner validate`: every check a run makes before starting, with no prompt and no change.
pub fn validate(settings: &Settings, stack: &StackSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &stack.provider)?;
    let check = StackCheck::run(settings, stack, &loaded.provider)?;
    for warning in &check.warnings {
        eprintln!("warning: {}: {}", warning.location, warning.message);
    }
    check.require_complete(&stack.stack)?;
    let environment = ChildEnvironment::build(std::env::vars(), &stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    super::check_shared_secrets(settings, &loaded, &stack.stack, &check, &backend)?;
    let references = undeclared_references(&loaded, &backend, &stack.stack);
    for reference in &references {
        eprintln!("warning: {}", reference.message);
    }
    println!(
        "provider `{}` and stack `{}` are valid: {} projects, {} configuration keys",
        loaded.provider.name,
        stack.stack,
        loaded.graph.len(),
        loaded.provider.config.len()
    );
    Ok(ExitStatus::Success)
}
