//! The backend's state files as the runner reads them: a folder for `file://`, the object store's
//! client for `s3://`, `gs://` and `azblob://`, nothing for Pulumi Cloud (only `pulumi` reads it).

use std::sync::Arc;

use super::{Backend, ChildEnvironment};
use crate::backend::{open_object_store, ObjectStore};
use crate::backend::{FolderFiles, StateFiles, StateFilesError};

/// An object store's keys, relative to the backend's folder in its bucket.
struct StoreFiles(Box<dyn ObjectStore>);

impl StateFiles for StoreFiles {
    fn list(&self, prefix: &str) -> Result<Vec<String>, StateFilesError> {
        let root = self.0.prefix();
        let keys = self
            .0
            .list(&format!("{root}{prefix}"))
            .map_err(|err| StateFilesError(crate::error::ErrorChain(&err).to_string()))?;
        Ok(keys.into_iter().map(|key| key.strip_prefix(root).map(str::to_string).unwrap_or(key)).collect())
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StateFilesError> {
        match self.0.get(&format!("{}{key}", self.0.prefix())) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(StateFilesError(crate::error::ErrorChain(&err).to_string())),
        }
    }
}

/// Why the runner cannot read a stack's state itself; `pulumi` reads it then, or the runner does
/// the safe thing (runs the project).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum StateReadError {
    #[error("the runner reads no state on `{scheme}://` backends; only `pulumi` does")]
    Unsupported { scheme: String },
    /// The store's or the reader's own words, credentials left out.
    #[error("{0}")]
    Unreadable(String),
    #[error("a secret output cannot be opened here (another secrets provider, or no passphrase)")]
    SealedSecret,
    #[error("its `Pulumi.yaml` cannot be read")]
    NoManifest,
}

impl Backend {
    /// The state files, signed with the credentials the runner gives its children; why not when
    /// the runner cannot read them.
    pub(crate) fn state_files(&self, environment: &ChildEnvironment) -> Result<Arc<dyn StateFiles>, StateReadError> {
        if let Some(dir) = self.local_dir() {
            return Ok(Arc::new(FolderFiles::new(dir.to_path_buf())));
        }
        match open_object_store(&self.url, environment) {
            Some(Ok(client)) => Ok(Arc::new(StoreFiles(client))),
            Some(Err(err)) => Err(StateReadError::Unreadable(crate::error::ErrorChain(&err).to_string())),
            None => {
                Err(StateReadError::Unsupported { scheme: self.url.split("://").next().unwrap_or_default().into() })
            }
        }
    }
}
