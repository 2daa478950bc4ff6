//! Why a request to a backend's object store (S3, Azure Blob, Google Cloud Storage) failed. Every
//! variant names the store by a URL without its query: a SAS token lives there, and reqwest's
//! own errors would print it (`without_url`).

/// A failed list, get or delete of a lock object, or a store the runner cannot sign for.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ObjectStoreError {
    /// The environment lacks what the runner signs with; the text names the variables read.
    #[error("{0}")]
    MissingCredentials(String),
    /// A credential is there but not usable (a key that is not base64, an unparsable key file).
    #[error("{0}")]
    InvalidCredentials(String),
    #[error("`{url}`: {source}")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("`{url}` answered {status}{}", if code.is_empty() { String::new() } else { format!(" {code}") })]
    Status { url: String, status: reqwest::StatusCode, code: String },
    /// The token endpoint refused the credentials (`invalid_grant`: a revoked sign-in, a deleted
    /// key); `credentials` names them and where they came from, `hint` how to get new ones.
    #[error("{credentials} got no token: {refusal}; {hint}")]
    CredentialsRefused { credentials: String, refusal: Box<ObjectStoreError>, hint: &'static str },
    /// No request could be made at all: the process's HTTP runtime or client did not start.
    #[error("{0}")]
    Client(#[source] crate::http::SharedClientError),
}

impl ObjectStoreError {
    /// The object is not there (deleted by its holder between a list and a delete).
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, Self::Status { status, .. } if *status == reqwest::StatusCode::NOT_FOUND)
    }
}
