use serde::Serialize;

use super::{HookSpec, Phase, ProjectPath, RetryPolicy};
use crate::error::Location;

/// A secret a project needs, prompted for without echo and stored with `pulumi config set --secret`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretSpec {
    pub key: String,
    pub prompt: String,
    /// A variable (environment file or process) that supplies the value without a prompt.
    pub default_env: Option<String>,
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
    /// Where the project is declared, for error messages.
    #[serde(skip)]
    pub origin: Location,
    /// Where each `depends_on` entry is written, parallel to `depends_on`.
    #[serde(skip)]
    pub dependency_origins: Vec<Location>,
}
