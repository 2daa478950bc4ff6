/// Why a request to a state backend's object store (the locks of an `s3://` backend) failed;
/// the HTTP client's error kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub enum ObjectStoreError {
    /// The credentials the runner gives its children do not reach the store: which are missing.
    #[error("{0}")]
    NoCredentials(String),
    #[error("`{url}`")]
    Request { url: String, source: reqwest::Error },
    /// `code` is the store's own error code (`AccessDenied`), empty when it sent none.
    #[error("{}", format!("`{url}` answered {status} {code}").trim_end())]
    Status { url: String, status: reqwest::StatusCode, code: String },
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("{0}")]
    Internal(String),
}
