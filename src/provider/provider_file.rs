//! The provider TOML as written on disk, before `extends` is resolved. Values a check can refuse
//! keep their `Spanned` position, so the error names the line of the key, not of `[[project]]`.

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
    /// MARA's semantics: every kubernetes project waits for the whole infrastructure phase.
    pub strict_phase_barrier: Option<bool>,
    /// Concurrency limits of named pools: `[pools] aws = 2`.
    #[serde(default)]
    pub pools: std::collections::BTreeMap<String, Spanned<i64>>,
    /// Environment-file entries that are not secret (the rest are, unless the runner knows the
    /// name as plain): `plain_environment = ["DEMO_REGION"]`.
    #[serde(default)]
    pub plain_environment: Vec<String>,
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
    pub on_success: Vec<Spanned<HookFile>>,
    pub retry: Option<Spanned<RetryFile>>,
    #[serde(default)]
    pub ready: Vec<Spanned<GateFile>>,
    #[serde(default)]
    pub targets: Vec<String>,
    #[serde(default)]
    pub target_dependents: bool,
    #[serde(default)]
    pub refresh: bool,
    #[serde(default)]
    pub always_run: bool,
    #[serde(default)]
    pub mock_outputs: std::collections::BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub prerequisites: Vec<PrerequisiteFile>,
    pub dir: Option<Spanned<String>>,
    #[serde(default)]
    pub only_as_prerequisite: bool,
    /// An infrastructure project that makes the cluster usable: kubernetes projects wait for it.
    #[serde(default)]
    pub provides_cluster: bool,
    /// `false` on a kubernetes project that never talks to the cluster (an image build).
    pub needs_cluster: Option<bool>,
    pub pool: Option<String>,
    #[serde(default)]
    pub show_outputs: Vec<String>,
    #[serde(default)]
    pub failure_hints: Vec<FailureHintFile>,
}

/// `{ contains = "...", hint = "..." }`: advice shown with a failure whose text holds `contains`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FailureHintFile {
    pub contains: Spanned<String>,
    pub hint: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GateFile {
    pub command: Option<Spanned<Vec<String>>>,
    pub http: Option<Spanned<String>>,
    pub expect_body: Option<String>,
    /// A PEM file of extra certificate authorities an `https` gate trusts.
    pub ca_file: Option<Spanned<String>>,
    pub tcp: Option<Spanned<String>>,
    /// `kind/name` of a Kubernetes object (crd, service, deployment, apiservice).
    pub kubernetes: Option<Spanned<String>>,
    pub namespace: Option<Spanned<String>>,
    pub context: Option<Spanned<String>>,
    pub timeout: Option<Spanned<String>>,
    pub interval: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PrerequisiteFile {
    pub project: Spanned<String>,
    pub succeeded_within: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RetryFile {
    pub attempts: Spanned<u32>,
    pub backoff: Option<Spanned<String>>,
    #[serde(default)]
    pub on: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AmendmentFile {
    pub path: Spanned<String>,
    #[serde(default)]
    pub depends_on: Vec<Spanned<String>>,
    pub provides_cluster: Option<bool>,
    pub needs_cluster: Option<bool>,
    pub pool: Option<String>,
    pub always_run: Option<bool>,
    #[serde(default)]
    pub mock_outputs: std::collections::BTreeMap<String, toml::Value>,
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
    /// Make the installed context the current one (never by default).
    #[serde(default)]
    pub switch_context: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandHookFile {
    pub argv: Spanned<Vec<String>>,
    pub timeout: Option<Spanned<String>>,
}
