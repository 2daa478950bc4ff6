use std::path::PathBuf;

use crate::exit_status::ExitStatus;

/// A place in a file a user can open: `path:line`, or just `path` when the line is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub line: Option<usize>,
}

impl Location {
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), line: None }
    }

    pub fn line(path: impl Into<PathBuf>, line: usize) -> Self {
        Self { path: path.into(), line: Some(line) }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}", shown_path(&self.path), line),
            None => write!(f, "{}", shown_path(&self.path)),
        }
    }
}

/// A path as every message shows it: relative to where the user stands when it is below it
/// (`config/pulumi/environment`), else as it is.
pub fn shown_path(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().ok();
    match cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok()) {
        Some(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// Everything a user can be told went wrong. Each variant knows its exit code and a hint.
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error("no repository root found from `{}` upward (a folder holding `providers/`, or a MARA checkout with `pulumi/python/automation/` and `config/pulumi/`)", shown_path(start))]
    RootNotFound { start: PathBuf },

    #[error("`{}` is not a directory holding `providers/`, nor a MARA checkout (`pulumi/python/automation/` and `config/pulumi/`)", shown_path(path))]
    RootInvalid { path: PathBuf },

    #[error("cannot read `{}`", shown_path(path))]
    Unreadable { path: PathBuf, source: std::io::Error },

    #[error("cannot write `{}`", shown_path(path))]
    Unwritable { path: PathBuf, source: std::io::Error },

    /// What the user types or pipes in (`stdin`, the answer from the terminal) could not be read.
    #[error("cannot read {input}")]
    InputUnreadable { input: &'static str, source: std::io::Error },

    #[error("{location}: {message}")]
    InvalidFile { location: Location, message: String },

    #[error("unknown provider `{name}`{}", suggestion_text(.suggestion))]
    UnknownProvider { name: String, suggestion: Option<String>, known: Vec<String> },

    #[error("stack `{from_flag}` from `--stack` differs from `PULUMI_STACK={from_file}` at `{location}`")]
    StackMismatch { from_flag: String, from_file: String, location: Location },

    #[error("no stack given: pass `--stack NAME` or set `PULUMI_STACK` in `{}`", shown_path(file))]
    StackMissing { file: PathBuf },

    #[error("invalid stack name `{name}`: use letters, digits, `-`, `_` and `.`")]
    StackInvalid { name: String },

    #[error("{location}: `kubernetes:infra_type` is `{found}` but provider `{provider}` expects `{expected}`")]
    InfraTypeMismatch { location: Location, found: String, expected: String, provider: String },

    #[error("missing configuration for stack `{stack}`:\n{}", missing_list(.missing))]
    MissingConfig { stack: String, missing: Vec<MissingSetting>, asked_by: AskedBy },

    #[error("{location}: dependency cycle: {}", cycle_text(.cycle))]
    Cycle { location: Location, cycle: Vec<String> },

    #[error("{location}: project `{project}` depends on unknown project `{dependency}`{}", suggestion_text(.suggestion))]
    UnknownDependency { location: Location, project: String, dependency: String, suggestion: Option<String> },

    #[error("{location}: unknown project `{project}`{}", suggestion_text(.suggestion))]
    UnknownProject { location: Location, project: String, suggestion: Option<String> },

    #[error("{location}: project `{project}` is declared twice (first at `{first}`)")]
    DuplicateProject { location: Location, project: String, first: Location },

    #[error("{location}: project path `{project}` escapes the projects root")]
    PathEscapesRoot { location: Location, project: String },

    #[error("{location}: project `{project}` has no `Pulumi.yaml` in `{}`", shown_path(dir))]
    MissingPulumiYaml { location: Location, project: String, dir: PathBuf },

    #[error("{location}: infrastructure project `{project}` depends on kubernetes project `{dependency}`")]
    PhaseInversion { location: Location, project: String, dependency: String },

    #[error("{location}: project `{project}` depends on itself")]
    SelfDependency { location: Location, project: String },

    #[error("`{program}` was not found on PATH")]
    ProgramMissing { program: String, hint: String },

    #[error("`{operation}` needs confirmation: pass `--yes` to run it without a terminal")]
    ConfirmationRequired { operation: String },

    #[error("stack `{stack}` is in use by another runner: {holder}")]
    StackBusy { stack: String, holder: String, lock: PathBuf },

    #[error("{location}: project `{project}` reads its stack configuration from `{}`, but the runner's shared stack file is in `{}`: one stack would have two diverging files", shown_path(project_dir), shown_path(runner_dir))]
    StackFileConflict { location: Location, project: String, project_dir: PathBuf, runner_dir: PathBuf },

    #[error("secret `{key}` would go into the shared stack file `{}` for every project's stack, but backend `{backend}` encrypts each stack with its own key: only one stack could decrypt it", shown_path(file))]
    SharedSecretRefused { key: String, file: PathBuf, backend: String, default_env: Option<String> },

    #[error("{} left alone: {}:\n{}", crate::text::counted(.locks.len(), "Pulumi lock"), if .locks.len() == 1 { "its holder is not provably gone" } else { "their holders are not provably gone" }, problem_list(.locks))]
    LocksHeld { locks: Vec<String>, force_command: String },

    #[error("cannot resume {resumed}: the stack changed since it started:\n{}", problem_list(.changes))]
    ResumeSuperseded { resumed: String, changes: Vec<String>, command: String },

    #[error("destroying {destroyed} would strand what reads from it:\n{}", problem_list(.holding))]
    DestroyWouldStrand { destroyed: String, holding: Vec<String>, command: String },

    #[error("{source_name} does not open stack `{stack}`: `{}` was sealed with another passphrase", shown_path(file))]
    WrongPassphrase { stack: String, file: PathBuf, source_name: String },

    #[error("{0}")]
    Usage(String),

    #[error("interrupted")]
    Interrupted,

    #[error("{0}")]
    Internal(String),

    /// The system refused what the runner needs to run at all (threads, an async runtime).
    #[error("cannot start {what}")]
    CannotStart { what: &'static str, source: std::io::Error },

    #[error("nothing was run; the preflight found {} {}:\n{}", .problems.len(), if .problems.len() == 1 { "problem" } else { "problems" }, problem_list(.problems))]
    PreflightFailed { problems: Vec<String> },
    #[error("{input} breaks the Pulumi Kubernetes Operator's rules:\n{}", problem_list(.problems))]
    OperatorRules { input: String, problems: Vec<String> },
}

fn problem_list(problems: &[String]) -> String {
    problems.iter().map(|problem| format!("  {problem}")).collect::<Vec<_>>().join("\n")
}

/// One configuration value the user still has to provide, and how to provide it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingSetting {
    pub key: String,
    pub how_to_set: String,
}

fn suggestion_text(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(name) => format!(" (did you mean `{name}`?)"),
        None => String::new(),
    }
}

/// A cycle of thousands of projects is named by its ends, not printed whole.
fn cycle_text(cycle: &[String]) -> String {
    const SHOWN: usize = 12;
    if cycle.len() <= SHOWN {
        return cycle.join(" -> ");
    }
    let head = cycle[..SHOWN - 2].join(" -> ");
    format!("{head} -> ... ({} more) -> {} -> {}", cycle.len() - SHOWN, cycle[cycle.len() - 2], cycle[cycle.len() - 1])
}

fn missing_list(missing: &[MissingSetting]) -> String {
    missing.iter().map(|setting| format!("  `{}`: {}", setting.key, setting.how_to_set)).collect::<Vec<_>>().join("\n")
}

impl UserError {
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            UserError::Interrupted => ExitStatus::Interrupted,
            UserError::Internal(_)
            | UserError::CannotStart { .. }
            | UserError::Unwritable { .. }
            | UserError::LocksHeld { .. } => ExitStatus::Failure,
            // Every variant named: a new one must choose its exit code here.
            UserError::RootNotFound { .. }
            | UserError::RootInvalid { .. }
            | UserError::Unreadable { .. }
            | UserError::InputUnreadable { .. }
            | UserError::InvalidFile { .. }
            | UserError::UnknownProvider { .. }
            | UserError::StackMismatch { .. }
            | UserError::StackMissing { .. }
            | UserError::StackInvalid { .. }
            | UserError::InfraTypeMismatch { .. }
            | UserError::MissingConfig { .. }
            | UserError::Cycle { .. }
            | UserError::UnknownDependency { .. }
            | UserError::UnknownProject { .. }
            | UserError::DuplicateProject { .. }
            | UserError::PathEscapesRoot { .. }
            | UserError::MissingPulumiYaml { .. }
            | UserError::PhaseInversion { .. }
            | UserError::SelfDependency { .. }
            | UserError::ProgramMissing { .. }
            | UserError::ConfirmationRequired { .. }
            | UserError::StackBusy { .. }
            | UserError::StackFileConflict { .. }
            | UserError::SharedSecretRefused { .. }
            | UserError::ResumeSuperseded { .. }
            | UserError::DestroyWouldStrand { .. }
            | UserError::WrongPassphrase { .. }
            | UserError::Usage(_)
            | UserError::PreflightFailed { .. }
            | UserError::OperatorRules { .. } => ExitStatus::Usage,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            UserError::RootNotFound { .. } => {
                Some("run `runner` inside a repository or a MARA checkout, or pass `--root DIR`".into())
            }
            UserError::UnknownProvider { known, .. } => Some(format!("known providers: {}", known.join(", "))),
            UserError::StackMismatch { .. } => {
                Some("change `PULUMI_STACK` in the environment file or drop `--stack`".into())
            }
            UserError::Cycle { .. } => Some("remove one of the `depends_on` edges in the cycle".into()),
            UserError::MissingPulumiYaml { .. } => {
                Some("create the project there, or set `projects_root` in the provider file".into())
            }
            UserError::PhaseInversion { .. } => Some(
                "kubernetes projects run after every infrastructure project; move one of them to the other phase"
                    .into(),
            ),
            UserError::ProgramMissing { hint, .. } => Some(hint.clone()),
            UserError::LocksHeld { force_command, .. } => Some(format!(
                "wait for the holder to finish; once it is gone for good, `{force_command}` removes the locks"
            )),
            UserError::StackBusy { lock, .. } => Some(format!(
                "wait for it, or pass `--wait`; if that runner is gone for good, remove `{}`",
                lock.display()
            )),
            UserError::StackFileConflict { project_dir, .. } => Some(format!(
                "run `runner` inside the checkout whose configuration `{}` is (or pass `--root` to it), or point the projects' `config:` at the runner's folder",
                project_dir.display()
            )),
            UserError::SharedSecretRefused { default_env, .. } => Some(match default_env {
                Some(env) => format!("set `{env}` in the environment instead (it reaches every project), or use a backend with a passphrase (`PULUMI_BACKEND_URL=file://...` or `s3://...`)"),
                None => "name a `secrets_project` in the provider (MARA's `kubernetes/secrets`), or use a backend with a passphrase (`PULUMI_BACKEND_URL=file://...` or `s3://...`)".into(),
            }),
            UserError::MissingConfig { asked_by: AskedBy::ThisCommand, .. } => {
                Some("run in a terminal without `--non-interactive` to be asked for each value".into())
            }
            UserError::MissingConfig { asked_by: AskedBy::Up { command }, .. } => {
                Some(format!("`{command}` in a terminal asks for each value; or set each as shown"))
            }
            UserError::ResumeSuperseded { command, .. } => Some(format!(
                "what it left pending may rest on what changed since: run `{command}` without `--resume`, which plans from the whole graph"
            )),
            UserError::DestroyWouldStrand { command, .. } => Some(format!(
                "their stacks read its outputs (a kubeconfig, stack references) to be destroyed themselves: `{command}` destroys them first; nothing was destroyed"
            )),
            UserError::WrongPassphrase { .. } => Some(
                "set the passphrase this stack was created with as `PULUMI_CONFIG_PASSPHRASE` (or `PULUMI_CONFIG_PASSPHRASE_FILE`) in `config/pulumi/environment`; nothing was run"
                    .into(),
            ),
            UserError::OperatorRules { .. } => Some(
                "the API server accepts these but the operator rejects or breaks on them: fix them before `kubectl apply`"
                    .into(),
            ),
            // Every variant named: a new one must decide whether it has a hint.
            UserError::RootInvalid { .. }
            | UserError::Unreadable { .. }
            | UserError::Unwritable { .. }
            | UserError::InputUnreadable { .. }
            | UserError::InvalidFile { .. }
            | UserError::StackMissing { .. }
            | UserError::StackInvalid { .. }
            | UserError::InfraTypeMismatch { .. }
            | UserError::UnknownDependency { .. }
            | UserError::UnknownProject { .. }
            | UserError::DuplicateProject { .. }
            | UserError::PathEscapesRoot { .. }
            | UserError::SelfDependency { .. }
            | UserError::ConfirmationRequired { .. }
            | UserError::Usage(_)
            | UserError::Interrupted
            | UserError::Internal(_)
            | UserError::CannotStart { .. }
            | UserError::PreflightFailed { .. } => None,
        }
    }
}

/// Who asks for missing configuration in a terminal: the command itself (a run), or only `up`
/// (`validate` checks and never asks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskedBy {
    ThisCommand,
    /// The `runner up` command that would ask, as it is typed.
    Up {
        command: String,
    },
}

pub type Result<T, E = UserError> = std::result::Result<T, E>;

/// An error and its `source()` chain as one line (`cannot read `x`: permission denied`): how
/// every error is shown, so a cause kept as `#[source]` is printed once and never lost. A cause
/// whose text is already shown (a library that quotes its own source) is not repeated.
pub struct ErrorChain<'a>(pub &'a dyn std::error::Error);

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = self.0.to_string();
        let mut cause = self.0.source();
        while let Some(err) = cause {
            let cause_text = err.to_string();
            if !text.contains(&cause_text) {
                text.push_str(": ");
                text.push_str(&cause_text);
            }
            cause = err.source();
        }
        f.write_str(&text)
    }
}

impl UserError {
    /// The message with its causes, for every place that shows a `UserError` as text.
    pub fn chain(&self) -> ErrorChain<'_> {
        ErrorChain(self)
    }

    /// A reason that is no `std::io::Error` of the system (`it is a directory`), kept as one so
    /// `Unreadable` and `Unwritable` always carry their cause as `source()`.
    pub fn io_reason(kind: std::io::ErrorKind, reason: &str) -> std::io::Error {
        std::io::Error::new(kind, reason.to_string())
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
