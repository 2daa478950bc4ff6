use std::io::IsTerminal;
use std::path::PathBuf;

use super::arguments::{
    HistoryArguments, ProviderArguments, RunArguments, SelectionArguments, ShowArguments, StackArguments,
};
use super::{OutputStyle, ReportTarget, ShowFormat};
use crate::config::{EnvironmentFile, RepositoryRoot};
use crate::error::{Result, UserError};
use crate::plan::{Operation, Selection};

/// What every command needs: where the repository is and how to print.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub root: RepositoryRoot,
    pub style: OutputStyle,
}

#[derive(Debug, Clone)]
pub(crate) struct ProviderSettings {
    pub name: String,
    pub projects_root: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) struct ShowSettings {
    pub provider: ProviderSettings,
    pub format: ShowFormat,
    pub operation: Operation,
    pub selection: Selection,
    /// `--pool NAME=N`, over the provider's `[pools]`.
    pub pools: Vec<(String, usize)>,
    /// `-j`, as `up` takes it: the tree's header caps the widest wave with it.
    pub parallelism: usize,
    /// `--durations FILE`: expected durations from a report instead of the history.
    pub durations: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) struct HistorySettings {
    pub stack: Option<String>,
    pub limit: usize,
}

/// A provider and a stack, with the environment file read and the stack name agreed.
#[derive(Debug, Clone)]
pub(crate) struct StackSettings {
    pub provider: ProviderSettings,
    pub stack: String,
    pub environment: EnvironmentFile,
}

#[derive(Debug, Clone)]
pub(crate) struct RunSettings {
    pub stack: StackSettings,
    pub operation: Operation,
    pub parallelism: usize,
    pub fail_fast: bool,
    pub verbose: bool,
    pub reports: Vec<ReportTarget>,
    /// False with `--non-interactive`, `CI` set, or stdin not a terminal: never prompt.
    pub interactive: bool,
    pub yes: bool,
    pub resume: bool,
    pub wait: bool,
    pub selection: Selection,
    pub targets: Vec<String>,
    /// `--pool NAME=N`, over the provider's `[pools]`.
    pub pools: Vec<(String, usize)>,
    /// `--expect-no-changes`: any change or drift ends the run with exit code 3.
    pub expect_no_changes: bool,
}

/// `runner outputs`: which projects, and how to print their outputs.
#[derive(Debug, Clone)]
pub(crate) struct OutputsSettings {
    pub stack: StackSettings,
    pub selection: Selection,
    pub json: bool,
    pub show_secrets: bool,
    /// Stdin is a terminal and `CI` is not set: the passphrase `--show-secrets` needs may be asked.
    pub interactive: bool,
}

impl OutputsSettings {
    pub(crate) fn from_arguments(arguments: super::arguments::OutputsArguments, root: &RepositoryRoot) -> Result<Self> {
        Ok(Self {
            stack: StackSettings::from_arguments(arguments.stack, root)?,
            selection: arguments.selection.into(),
            json: arguments.json,
            show_secrets: arguments.show_secrets,
            interactive: !ci_job() && std::io::stdin().is_terminal(),
        })
    }
}

impl ProviderSettings {
    pub(crate) fn from_arguments(arguments: ProviderArguments) -> Self {
        Self { name: arguments.provider, projects_root: arguments.projects_root }
    }
}

impl ShowSettings {
    pub(crate) fn from_arguments(arguments: ShowArguments) -> Self {
        Self {
            provider: ProviderSettings::from_arguments(arguments.provider),
            format: arguments.format,
            operation: arguments.operation,
            selection: arguments.selection.into(),
            pools: arguments.pool,
            parallelism: usize::from(arguments.parallelism),
            durations: arguments.durations,
        }
    }
}

impl StackSettings {
    pub(crate) fn from_arguments(arguments: StackArguments, root: &RepositoryRoot) -> Result<Self> {
        let environment = EnvironmentFile::load(&root.environment_file())?;
        let home = std::env::var("HOME").ok();
        crate::pulumi::refuse_home_without_home(&environment, home.as_deref())?;
        let stack = resolve_stack(arguments.stack, &environment)?;
        Ok(Self { provider: ProviderSettings::from_arguments(arguments.provider), stack, environment })
    }
}

impl RunSettings {
    pub(crate) fn from_arguments(arguments: RunArguments, operation: Operation, root: &RepositoryRoot) -> Result<Self> {
        let interactive = !arguments.non_interactive && !ci_job() && std::io::stdin().is_terminal();
        Ok(Self {
            stack: StackSettings::from_arguments(arguments.stack, root)?,
            operation,
            parallelism: usize::from(arguments.parallelism),
            fail_fast: arguments.fail_fast,
            verbose: arguments.verbose,
            reports: arguments.report,
            interactive,
            yes: arguments.yes,
            resume: arguments.resume,
            wait: arguments.wait,
            targets: arguments.target,
            expect_no_changes: arguments.expect_no_changes,
            selection: arguments.selection.into(),
            pools: arguments.pool,
        })
    }
}

impl From<SelectionArguments> for Selection {
    fn from(arguments: SelectionArguments) -> Self {
        Selection {
            only: arguments.only,
            with_dependencies: arguments.with_dependencies,
            with_dependents: arguments.with_dependents,
            exclude: arguments.exclude,
            from: arguments.from,
            affected_since: arguments.affected,
            affected: None,
            no_skip_unchanged: arguments.no_skip_unchanged,
        }
    }
}

impl HistorySettings {
    pub(crate) fn from_arguments(arguments: HistoryArguments) -> Self {
        Self { stack: arguments.stack, limit: arguments.limit }
    }
}

/// `--stack` and `PULUMI_STACK` from the environment file must agree when both are given.
fn resolve_stack(from_flag: Option<String>, environment: &EnvironmentFile) -> Result<String> {
    let from_file = environment.get("PULUMI_STACK").filter(|value| !value.is_empty());
    let stack = match (from_flag, from_file) {
        (Some(flag), Some(file)) if flag != file => {
            let line = environment.entry("PULUMI_STACK").map(|entry| entry.line);
            return Err(UserError::StackMismatch {
                from_flag: flag,
                from_file: file.to_string(),
                location: crate::error::Location { path: environment.path().to_path_buf(), line },
            });
        }
        (Some(flag), _) => flag,
        (None, Some(file)) => file.to_string(),
        (None, None) => return Err(UserError::StackMissing { file: environment.path().to_path_buf() }),
    };
    let valid = !stack.is_empty()
        && stack.len() <= 100
        && stack.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !stack.starts_with('.');
    if valid {
        Ok(stack)
    } else {
        Err(UserError::StackInvalid { name: stack })
    }
}

/// `CI` is set (to anything but empty, `false` or `0`): never prompt.
fn ci_job() -> bool {
    std::env::var_os("CI").is_some_and(|value| !value.is_empty() && value != "false" && value != "0")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn environment(text: &str) -> EnvironmentFile {
        EnvironmentFile::parse(Path::new("config/pulumi/environment"), text).unwrap()
    }

    #[test]
    fn flag_and_file_must_agree() {
        let err = resolve_stack(Some("prod".into()), &environment("PULUMI_STACK=dev\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stack `prod` from `--stack` differs from `PULUMI_STACK=dev` at `config/pulumi/environment:1`"
        );
    }

    #[test]
    fn file_alone_names_the_stack() {
        assert_eq!(resolve_stack(None, &environment("PULUMI_STACK=dev\n")).unwrap(), "dev");
    }

    #[test]
    fn a_stack_is_required() {
        assert!(matches!(resolve_stack(None, &environment("")), Err(UserError::StackMissing { .. })));
    }

    #[test]
    fn stack_names_are_checked() {
        assert!(matches!(resolve_stack(Some("a/b".into()), &environment("")), Err(UserError::StackInvalid { .. })));
    }
}
