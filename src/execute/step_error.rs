use super::ProjectCliError;
use crate::hooks::{CommandHookError, KubeconfigError};

/// Why a step after the operation (a prerequisite, an `on_success` hook, a readiness gate)
/// failed its project; the failure's summary is its text with every cause (`ErrorChain`).
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(transparent)]
    Cli(#[from] ProjectCliError),
    #[error("on_success command")]
    Command(#[source] CommandHookError),
    #[error("kubeconfig hook")]
    Kubeconfig(#[source] KubeconfigError),
    #[error("stack output `{0}` does not exist; the kubeconfig hook needs it")]
    MissingOutput(String),
    #[error("unknown prerequisite `{0}`")]
    UnknownPrerequisite(String),
    /// The prerequisite ran and did not succeed: `prerequisite `x` failed: why`.
    #[error("prerequisite `{project}` {result}: {summary}")]
    Prerequisite { project: String, result: &'static str, summary: String },
    /// A readiness gate that did not pass within its timeout, and its last attempt.
    #[error("not ready: {0}")]
    NotReady(String),
    #[error("internal error: {0}")]
    Internal(String),
}
