//! One entry of a stack's update history as the DIY backend keeps it
//! (`.pulumi/history/<project>/<stack>/<stack>-<unix nanoseconds>.history.json`): Pulumi's
//! `UpdateInfo`, the same for every checkout and every tool that updated the stack.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{state_file_bytes, UpdateKind, UpdateResult};

#[derive(Debug, Deserialize)]
struct UpdateInfo {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    result: String,
    #[serde(rename = "resourceChanges", default)]
    resource_changes: BTreeMap<String, u64>,
}

/// What an update did, how it ended and the message it was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UpdateEntry {
    pub kind: UpdateKind,
    pub result: UpdateResult,
    pub message: String,
    /// Pulumi's counts by change (`same`, `create`, `update`, `delete`, ...).
    pub changes: BTreeMap<String, u64>,
}

/// Why an entry could not be read.
#[derive(Debug, thiserror::Error)]
#[error("`{key}` is not a Pulumi update record")]
pub(crate) struct UpdateEntryError {
    key: String,
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl UpdateEntry {
    pub(crate) fn parse(key: &str, bytes: Vec<u8>) -> Result<Self, UpdateEntryError> {
        let error = |source: Box<dyn std::error::Error + Send + Sync>| UpdateEntryError { key: key.into(), source };
        let bytes = state_file_bytes(key, bytes).map_err(|err| error(Box::new(err)))?;
        let info: UpdateInfo = serde_json::from_slice(&bytes).map_err(|err| error(Box::new(err)))?;
        Ok(Self {
            kind: UpdateKind::parse(&info.kind),
            result: UpdateResult::parse(&info.result),
            message: info.message,
            changes: info.resource_changes,
        })
    }

    /// A successful refresh that found every resource as the state held it: the state is as before.
    pub(crate) fn is_quiet_refresh(&self) -> bool {
        self.kind == UpdateKind::Refresh
            && self.result == UpdateResult::Succeeded
            && self.changes.iter().all(|(change, count)| change == "same" || *count == 0)
    }
}

/// A history file's key, newest first by the nanoseconds in its name (`dev-1764000000000000000.history.json`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct HistoryKey {
    pub nanos: u128,
    pub key: String,
}

impl HistoryKey {
    /// `None` for a key that is not an update record of `stack` (its checkpoint copy, a temporary file).
    pub(crate) fn of(key: &str, stack: &str) -> Option<Self> {
        let name = key.rsplit('/').next()?;
        let rest = name.strip_prefix(stack)?.strip_prefix('-')?;
        let (nanos, extension) = rest.split_once('.')?;
        if !matches!(extension, "history.json" | "history.json.gz") {
            return None;
        }
        Some(Self { nanos: nanos.parse().ok()?, key: key.to_string() })
    }

    /// The copy of the checkpoint Pulumi saved with this record.
    pub(crate) fn checkpoint_copy(&self) -> String {
        self.key.replacen(".history.json", ".checkpoint.json", 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_update_records_of_the_stack_are_history_keys() {
        let dir = ".pulumi/history/net/dev/";
        let cases = [
            ("dev-1764000000000000001.history.json", Some(1764000000000000001)),
            ("dev-1764000000000000001.history.json.gz", Some(1764000000000000001)),
            ("dev-1764000000000000001.checkpoint.json", None),
            ("dev-1764000000000000001.history.json.17f3a2b4.tmp", None),
            ("dev2-1764000000000000001.history.json", None),
            ("prod-1.history.json", None),
        ];
        for (name, nanos) in cases {
            let key = format!("{dir}{name}");
            assert_eq!(HistoryKey::of(&key, "dev").map(|found| found.nanos), nanos, "{name}");
        }
        let key = HistoryKey::of(&format!("{dir}dev-5.history.json.gz"), "dev").unwrap();
        assert_eq!(key.checkpoint_copy(), format!("{dir}dev-5.checkpoint.json.gz"));
    }

    #[test]
    fn a_refresh_is_quiet_only_when_it_succeeded_and_changed_nothing() {
        let entry = |kind: &str, result: &str, changes: &str| {
            let text = format!(r#"{{"kind":"{kind}","result":"{result}","resourceChanges":{changes}}}"#);
            UpdateEntry::parse("h.history.json", text.into_bytes()).unwrap()
        };
        assert!(entry("refresh", "succeeded", r#"{"same":3}"#).is_quiet_refresh());
        assert!(entry("refresh", "succeeded", r#"{}"#).is_quiet_refresh());
        assert!(!entry("refresh", "succeeded", r#"{"same":2,"update":1}"#).is_quiet_refresh());
        assert!(!entry("refresh", "failed", r#"{"same":3}"#).is_quiet_refresh());
        assert!(!entry("update", "succeeded", r#"{"same":3}"#).is_quiet_refresh());
    }
}
