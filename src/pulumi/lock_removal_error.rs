use std::path::PathBuf;

use super::ObjectStoreError;

/// Why a Pulumi lock could not be removed; the cause kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub enum LockRemovalError {
    #[error("cannot remove `{}`", .0.display())]
    File(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Store(#[from] ObjectStoreError),
    #[error("`{0}` is not an `s3://` backend")]
    NotS3(String),
}
