use serde::Serialize;

use super::{HookSpec, Phase, ProjectPath, ReadinessGate, RetryPolicy};
use crate::error::Location;

/// A secret a project needs, prompted for without echo and stored with `pulumi config set --secret`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretSpec {
    pub key: String,
    pub prompt: String,
    /// A variable (environment file or process) that supplies the value without a prompt.
    pub default_env: Option<String>,
}

/// `{ project = "update-vault-creds", succeeded_within = "5m" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prerequisite {
    pub project: ProjectPath,
    #[serde(with = "humantime_serde")]
    pub succeeded_within: std::time::Duration,
}

/// One Pulumi project as the provider declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Project {
    pub path: ProjectPath,
    pub description: String,
    pub phase: Phase,
    pub depends_on: Vec<ProjectPath>,
    pub secrets: Vec<SecretSpec>,
    pub on_success: Vec<HookSpec>,
    /// `None`: the built-in policy (transient failures only).
    pub retry: Option<RetryPolicy>,
    /// Checks that must pass after an `up` before dependents start.
    pub ready: Vec<ReadinessGate>,
    /// `--target` URNs: operate on these resources only (a prerequisite updating a provider).
    pub targets: Vec<String>,
    pub target_dependents: bool,
    /// `up --refresh`: refresh state before updating.
    pub refresh: bool,
    /// Its program reads data from outside its stack's inputs: never skipped as unchanged.
    pub always_run: bool,
    /// Outputs a `preview` of a dependent reads while this project's stack was never deployed;
    /// `up` never uses them. Values as JSON.
    pub mock_outputs: std::collections::BTreeMap<String, serde_json::Value>,
    /// Projects that must have succeeded (an `up`) within a window before this one runs.
    pub prerequisites: Vec<Prerequisite>,
    /// The program's folder when it differs from `path`: a prerequisite can run another
    /// project's program on the same stack, with `targets`.
    pub dir: Option<String>,
    /// Left out of ordinary runs; runs (as an `up`) only when a project needs it as a prerequisite.
    pub only_as_prerequisite: bool,
    /// Kubernetes projects (those with `needs_cluster`) wait for every project marked so.
    pub provides_cluster: bool,
    /// A kubernetes project that talks to the cluster; `false` lets it start with its own
    /// dependencies only (an image build or push).
    pub needs_cluster: bool,
    /// A concurrency pool (`pool = "aws"`): at most the pool's limit of its projects run at once.
    pub pool: Option<String>,
    /// Stack outputs worth showing at the end of a terminal `up` (the application's URL).
    pub show_outputs: Vec<String>,
    /// Advice for failures the provider's author knows: the first whose `contains` is in the
    /// failure's text is shown with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failure_hints: Vec<FailureHint>,
    /// Where the project is declared, for error messages.
    #[serde(skip)]
    pub origin: Location,
    /// Where each `depends_on` entry is written, parallel to `depends_on`.
    #[serde(skip)]
    pub dependency_origins: Vec<Location>,
}

/// A known failure of a project and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureHint {
    pub contains: String,
    pub hint: String,
}

impl FailureHint {
    /// The first hint whose text is in `failure` (its summary, diagnostics or output).
    pub fn first_matching<'a>(hints: &'a [FailureHint], failure: &[&str]) -> Option<&'a str> {
        hints
            .iter()
            .find(|hint| failure.iter().any(|text| text.contains(hint.contains.as_str())))
            .map(|hint| hint.hint.as_str())
    }
}

impl Project {
    /// The folder whose program and stack this project runs: `dir`, else its own path. Two
    /// projects with the same folder operate on the same stack.
    pub fn stack_folder(&self) -> &str {
        self.dir.as_deref().unwrap_or(self.path.as_str())
    }
}
