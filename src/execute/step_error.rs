use super::ProjectCliError;
use crate::hooks::{CommandHookError, KubeconfigError};

/// Why a step after the operation (a prerequisite, an `on_success` hook, a readiness gate)
/// failed its project; the failure's summary is its text with every cause (`ErrorChain`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StepError {
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

#[cfg(test)]
mod tests {
    use std::io::{Error, ErrorKind};

    use super::*;
    use crate::error::ErrorChain;

    /// A step's failure summary is its message with each cause once, as it read before the
    /// causes were kept as sources.
    #[test]
    fn summaries_carry_every_cause_once() {
        let denied = || Error::new(ErrorKind::PermissionDenied, "permission denied");
        let shapes = [
            (
                StepError::Command(CommandHookError::Outputs(denied())),
                "on_success command: cannot write the outputs file: permission denied",
            ),
            (
                StepError::Kubeconfig(KubeconfigError::Io("back up", "/k/config".into(), denied())),
                "kubeconfig hook: cannot back up /k/config: permission denied",
            ),
            (StepError::Cli(ProjectCliError::Project(Box::new(denied()))), "permission denied"),
            (
                StepError::Cli(ProjectCliError::NotStarted("`pulumi`: no such program".into())),
                "cannot run `pulumi`: no such program",
            ),
        ];
        for (err, summary) in shapes {
            assert_eq!(ErrorChain(&err).to_string(), summary, "{err:?}");
        }
        let kept = StepError::Command(CommandHookError::Outputs(denied()));
        let cause = std::error::Error::source(&kept).and_then(std::error::Error::source);
        let io = cause.and_then(|cause| cause.downcast_ref::<Error>()).map(Error::kind);
        assert_eq!(io, Some(ErrorKind::PermissionDenied));
    }
}
