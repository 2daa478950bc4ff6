//! The files of a DIY backend (`file://`, `s3://`, `gs://`, `azblob://`) by their key under the
//! backend's root (`.pulumi/stacks/...`): all the state readers need, wherever the state is kept.

use std::path::PathBuf;

/// Reads a backend's files; keys are relative to its root, with `/` between parts.
pub(crate) trait StateFiles: Send + Sync {
    /// Every key under `prefix` (a folder ending in `/`).
    fn list(&self, prefix: &str) -> Result<Vec<String>, StateFilesError>;
    /// The file's bytes; `None` when there is no such file.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StateFilesError>;
}

/// Why the backend's files could not be read: the store's own words, with no credential in them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct StateFilesError(pub String);

/// A `file://` backend: a folder on this machine.
#[derive(Debug, Clone)]
pub(crate) struct FolderFiles {
    root: PathBuf,
}

impl FolderFiles {
    pub(crate) fn new(root: PathBuf) -> Self {
        Self { root }
    }
}

impl StateFiles for FolderFiles {
    fn list(&self, prefix: &str) -> Result<Vec<String>, StateFilesError> {
        let entries = match std::fs::read_dir(self.root.join(prefix)) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(StateFilesError(format!("cannot list `{prefix}`: {err}"))),
        };
        let mut keys: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
            .map(|entry| format!("{prefix}{}", entry.file_name().to_string_lossy()))
            .collect();
        keys.sort();
        Ok(keys)
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StateFilesError> {
        match std::fs::read(self.root.join(key)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(StateFilesError(format!("cannot read `{key}`: {err}"))),
        }
    }
}

/// Files kept in memory, for tests of the readers.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct MemoryFiles(pub std::sync::Mutex<std::collections::BTreeMap<String, Vec<u8>>>);

#[cfg(test)]
impl MemoryFiles {
    pub(crate) fn put(&self, key: &str, bytes: impl Into<Vec<u8>>) {
        self.0.lock().unwrap().insert(key.to_string(), bytes.into());
    }
}

#[cfg(test)]
impl StateFiles for MemoryFiles {
    fn list(&self, prefix: &str) -> Result<Vec<String>, StateFilesError> {
        Ok(self.0.lock().unwrap().keys().filter(|key| key.starts_with(prefix)).cloned().collect())
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StateFilesError> {
        Ok(self.0.lock().unwrap().get(key).cloned())
    }
}
