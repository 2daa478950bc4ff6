//! The provider TOML as written on disk, before `extends` is resolved.

use serde::Deserialize;
use toml::Spanned;

use super::{Phase, ValueKind};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProviderFile {
    pub description: Option<String>,
    pub infra_type: Option<String>,
    pub extends: Option<Spanned<String>>,
    pub projects_root: Option<Spanned<String>>,
    pub secrets_project: Option<Spanned<String>>,
    #[serde(default)]
    pub config: Vec<ConfigKeyFile>,
    #[serde(default, rename = "project")]
    pub projects: Vec<Spanned<ProjectFile>>,
    #[serde(default, rename = "amend")]
    pub amendments: Vec<Spanned<AmendmentFile>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConfigKeyFile {
    pub key: String,
    pub prompt: Option<String>,
    pub default_env: Option<String>,
    pub default: Option<toml::Value>,
    #[serde(default)]
    pub choices: Vec<toml::Value>,
    #[serde(default)]
    pub kind: ValueKind,
    #[serde(default)]
    pub secret: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProjectFile {
    pub path: Spanned<String>,
    pub description: Option<String>,
    pub phase: Phase,
    #[serde(default)]
    pub depends_on: Vec<Spanned<String>>,
    #[serde(default)]
    pub secrets: Vec<SecretFile>,
    #[serde(default)]
    pub on_success: Vec<HookFile>,
    pub retry: Option<RetryFile>,
    #[serde(default)]
    pub ready: Vec<GateFile>,
    #[serde(default)]
    pub targets: Vec<String>,
    #[serde(default)]
    pub target_dependents: bool,
    #[serde(default)]
    pub refresh: bool,
    #[serde(default)]
    pub prerequisites: Vec<PrerequisiteFile>,
    pub dir: Option<Spanned<String>>,
    #[serde(default)]
    pub only_as_prerequisite: bool,
    #[serde(default)]
    pub show_outputs: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GateFile {
    pub command: Option<Vec<String>>,
    pub http: Option<String>,
    pub expect_body: Option<String>,
    pub tcp: Option<String>,
    pub timeout: Option<String>,
    pub interval: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PrerequisiteFile {
    pub project: Spanned<String>,
    pub succeeded_within: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RetryFile {
    pub attempts: u32,
    pub backoff: Option<String>,
    #[serde(default)]
    pub on: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AmendmentFile {
    pub path: Spanned<String>,
    #[serde(default)]
    pub depends_on: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SecretFile {
    pub key: String,
    pub prompt: Option<String>,
    pub default_env: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub(super) enum HookFile {
    Kubeconfig(KubeconfigHookFile),
    Command(CommandHookFile),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KubeconfigHookFile {
    pub output: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandHookFile {
    pub argv: Vec<String>,
    pub timeout: Option<String>,
}

/// 1-based line of a byte offset, for error messages.
pub(super) fn line_at(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count()
}
