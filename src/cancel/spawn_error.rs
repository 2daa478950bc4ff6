/// Why a child could not be started; [`ChildEnd::SpawnFailed`](super::ChildEnd) holds its text.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpawnError {
    /// Not on PATH, or a wrong path: the system's `ENOENT` says no more than that.
    #[error("`{program}`: {}", super::child_process::NOT_FOUND)]
    NotFound { program: String },
    #[error("`{program}`")]
    Failed { program: String, source: std::io::Error },
}
