//! A stack as the shared backend holds it, read without a `pulumi` process: its checkpoint and
//! its update history. The one place that decides whether a stack is provably as a runner `up`
//! left it, so a skip is proven from the backend, never from what this checkout remembers.

use super::{Checkpoint, CheckpointError, HistoryKey, StateFiles, StateFilesError, UpFingerprint, UpdateEntry};

/// One stack of a project on a DIY backend.
pub(crate) struct StackState<'a> {
    files: &'a dyn StateFiles,
    project: &'a str,
    stack: &'a str,
}

/// Which proof is missing that a stack is as the runner's last `up` left it: the dependent runs.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MissingProof {
    #[error("its stack is not in the backend")]
    NoStack,
    #[error("its stack holds no resources (destroyed, or never updated)")]
    Empty,
    #[error("no update of its stack is recorded in the backend")]
    NoHistory,
    #[error("its latest update in the backend is `{kind}` ({result})")]
    LatestIs { kind: String, result: String },
    #[error("its latest update in the backend was not made by the runner (by hand, or another tool)")]
    NotByRunner,
    #[error("its checkpoint changed after its latest update (`pulumi state`, `stack import`, or a write in progress)")]
    ChangedSince,
    #[error("its state cannot be read: {0}")]
    Unreadable(String),
}

impl From<StateFilesError> for MissingProof {
    fn from(err: StateFilesError) -> Self {
        MissingProof::Unreadable(err.0)
    }
}

impl From<CheckpointError> for MissingProof {
    fn from(err: CheckpointError) -> Self {
        MissingProof::Unreadable(crate::error::ErrorChain(&err).to_string())
    }
}

impl<'a> StackState<'a> {
    pub(crate) fn new(files: &'a dyn StateFiles, project: &'a str, stack: &'a str) -> Self {
        Self { files, project, stack }
    }

    /// The checkpoint's key and bytes, plain or gzipped; `None` when the stack does not exist.
    pub(crate) fn checkpoint_file(&self) -> Result<Option<(String, Vec<u8>)>, StateFilesError> {
        for extension in ["json", "json.gz"] {
            let key = format!(".pulumi/stacks/{}/{}.{extension}", self.project, self.stack);
            if let Some(bytes) = self.files.get(&key)? {
                return Ok(Some((key, bytes)));
            }
        }
        Ok(None)
    }

    /// The stack's latest checkpoint; `None` when the stack does not exist.
    pub(crate) fn checkpoint(&self) -> Result<Option<Checkpoint>, MissingProof> {
        match self.checkpoint_file()? {
            Some((key, bytes)) => Ok(Some(Checkpoint::parse(&key, bytes)?)),
            None => Ok(None),
        }
    }

    /// Its update records, newest first.
    pub(crate) fn history(&self) -> Result<Vec<HistoryKey>, StateFilesError> {
        let folder = format!(".pulumi/history/{}/{}/", self.project, self.stack);
        let mut keys: Vec<HistoryKey> =
            self.files.list(&folder)?.iter().filter_map(|key| HistoryKey::of(key, self.stack)).collect();
        keys.sort_by(|a, b| b.cmp(a));
        Ok(keys)
    }

    fn entry(&self, key: &HistoryKey) -> Result<UpdateEntry, MissingProof> {
        let bytes = self.files.get(&key.key)?.ok_or(MissingProof::ChangedSince)?;
        UpdateEntry::parse(&key.key, bytes)
            .map_err(|err| MissingProof::Unreadable(crate::error::ErrorChain(&err).to_string()))
    }

    /// What the stack's last update was made with, when the backend proves the stack is as a
    /// successful runner `up` left it: every later record is a refresh that changed nothing, the
    /// checkpoint is byte for byte the one saved with the newest record, and it holds resources.
    pub(crate) fn last_up(&self) -> Result<UpFingerprint, MissingProof> {
        let (key, current) = self.checkpoint_file()?.ok_or(MissingProof::NoStack)?;
        let history = self.history()?;
        let newest = history.first().ok_or(MissingProof::NoHistory)?;
        let mut fingerprint = None;
        for record in &history {
            let entry = self.entry(record)?;
            if entry.is_quiet_refresh() {
                continue;
            }
            if entry.kind != super::UpdateKind::Update || entry.result != super::UpdateResult::Succeeded {
                return Err(MissingProof::LatestIs {
                    kind: entry.kind.as_str().to_string(),
                    result: entry.result.as_str().to_string(),
                });
            }
            fingerprint = Some(UpFingerprint::from_message(&entry.message).ok_or(MissingProof::NotByRunner)?);
            break;
        }
        let fingerprint = fingerprint.ok_or(MissingProof::NoHistory)?;
        if self.files.get(&newest.checkpoint_copy())?.as_ref() != Some(&current) {
            return Err(MissingProof::ChangedSince);
        }
        if Checkpoint::parse(&key, current)?.resource_count() == 0 {
            return Err(MissingProof::Empty);
        }
        Ok(fingerprint)
    }
}

#[cfg(test)]
#[path = "stack_state_tests.rs"]
mod tests;
