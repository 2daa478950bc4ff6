use std::path::PathBuf;

use crate::backend::ObjectStoreError;

/// Why a Pulumi lock could not be removed; the cause kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockRemovalError {
    #[error("cannot remove `{}`", .0.display())]
    File(PathBuf, #[source] std::io::Error),
    /// The store, named by its URL without the query (where a SAS token lives).
    #[error("`{url}`")]
    Store {
        url: String,
        #[source]
        source: ObjectStoreError,
    },
    #[error("`{0}` is not an object-store backend")]
    NotObjectStore(String),
}
