use std::path::PathBuf;
use std::time::Duration;

/// Why one attempt of a readiness gate did not pass; the gate's outcome quotes the last one
/// with its causes (`ErrorChain`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum GateAttemptError {
    #[error("cannot run {0}")]
    NotStarted(String),
    /// The command's exit code and the last lines it printed.
    #[error("exit code {code}: {last}")]
    Exited { code: String, last: String },
    #[error("connect to {address}")]
    Connect { address: String, source: std::io::Error },
    /// reqwest's own chain, its repeated parts left out.
    #[error("GET {url}: {detail}")]
    Request { url: String, detail: String },
    #[error("HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("HTTP {status}, but the body lacks `{expected}`")]
    BodyLacks { status: u16, expected: String },
    #[error("cannot read `ca_file` {}", .path.display())]
    CaFileUnreadable { path: PathBuf, source: std::io::Error },
    #[error("`ca_file` {} holds no PEM certificate", .path.display())]
    CaFileNotPem { path: PathBuf, source: Option<reqwest::Error> },
    #[error("cannot set up an HTTP client: {0}")]
    Client(String),
    /// What a `kubernetes` gate found missing (a condition, a ready endpoint).
    #[error(transparent)]
    NotReady(#[from] super::kubernetes_readiness::NotReady),
    #[error("{command} printed no JSON: {detail}")]
    NotJson { command: String, detail: String },
    #[error("no answer within {}", humantime::format_duration(*.0))]
    NoAnswer(Duration),
    #[error("stopped: the run is cancelled")]
    Cancelled,
}
