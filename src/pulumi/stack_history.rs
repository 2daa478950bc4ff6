//! Pulumi's own record of a stack's operations, `pulumi stack history --json`: the history every
//! machine sharing a backend sees, where `.runner/history` only knows this working copy's runs.

use std::path::Path;
use std::time::SystemTime;

use serde::Deserialize;

use super::{Backend, ChildEnvironment, PulumiManifest};
pub(crate) use crate::backend::{UpdateKind, UpdateResult};
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::plan::Operation;
use crate::provider::{ProjectPath, Provider};

/// One entry of a stack's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StackUpdate {
    pub kind: UpdateKind,
    pub result: UpdateResult,
    pub started: Option<SystemTime>,
    pub ended: Option<SystemTime>,
}

impl StackUpdate {
    /// The runner's operation that records this entry, if any.
    pub(crate) fn operation(&self) -> Option<Operation> {
        self.kind.operation()
    }

    pub(crate) fn succeeded(&self) -> bool {
        self.result == UpdateResult::Succeeded
    }
}

/// A stack's updates, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StackHistory {
    pub updates: Vec<StackUpdate>,
}

#[derive(Deserialize)]
struct RawUpdate {
    kind: String,
    result: String,
    #[serde(rename = "startTime")]
    start_time: Option<String>,
    #[serde(rename = "endTime")]
    end_time: Option<String>,
}

/// Why a stack's history could not be read; the cause kept as `source()`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StackHistoryError {
    #[error(transparent)]
    Project(#[from] super::ManifestError),
    #[error("cannot start {0}")]
    NotStarted(String),
    #[error("`pulumi stack history --stack {stack}` failed: {first}")]
    Failed { stack: String, first: String },
    #[error("`pulumi stack history --json` printed no history")]
    NoHistory(#[source] serde_json::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

impl StackHistory {
    /// Parses the JSON array the CLI prints. Every entry has `"version": 0` on a self-managed
    /// backend (file, S3), so the order is taken from the times, not the versions.
    pub(crate) fn parse(text: &str) -> Result<Self, StackHistoryError> {
        let raw: Vec<RawUpdate> = serde_json::from_str(text).map_err(StackHistoryError::NoHistory)?;
        let time = |text: &Option<String>| {
            text.as_deref().and_then(|text| humantime::parse_rfc3339_weak(text.trim_end_matches('Z')).ok())
        };
        let mut updates: Vec<StackUpdate> = raw
            .into_iter()
            .map(|entry| StackUpdate {
                started: time(&entry.start_time),
                ended: time(&entry.end_time),
                kind: UpdateKind::parse(&entry.kind),
                result: UpdateResult::parse(&entry.result),
            })
            .collect();
        updates.sort_by_key(|update| std::cmp::Reverse(update.ended.or(update.started)));
        Ok(Self { updates })
    }

    /// When the stack last finished an `up` successfully.
    pub(crate) fn last_successful_up(&self) -> Option<SystemTime> {
        self.updates
            .iter()
            .filter(|update| update.kind == UpdateKind::Update && update.succeeded())
            .filter_map(|u| u.ended)
            .max()
    }

    /// The newest entry of `operation` (`up`, `refresh`, `destroy`), whatever its result.
    pub(crate) fn latest_of(&self, operation: Operation) -> Option<&StackUpdate> {
        self.updates.iter().find(|update| update.operation() == Some(operation))
    }

    pub(crate) fn latest(&self) -> Option<&StackUpdate> {
        self.updates.first()
    }
}

/// Reads a project's stack history from the backend the environment names. `Ok(None)`: the
/// stack does not exist there. One `pulumi` process; no passphrase is needed for it.
pub(crate) fn read_stack_history(
    pulumi: &Path,
    environment: &ChildEnvironment,
    project_dir: &Path,
    qualified_stack: &str,
) -> Result<Option<StackHistory>, StackHistoryError> {
    let output = ChildProcess::new(pulumi)
        .args(["stack", "history", "--json", "--non-interactive", "--stack", qualified_stack])
        .current_dir(project_dir)
        .env_clear()
        .envs(environment.vars())
        .timeout(QUERY_TIMEOUT)
        .output_blocking(&Cancellation::process());
    if let ChildEnd::SpawnFailed(reason) = &output.end {
        return Err(StackHistoryError::NotStarted(reason.clone()));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.success() {
        if stderr.contains("no stack named") {
            return Ok(None);
        }
        let first = stderr.lines().find(|line| !line.trim().is_empty()).unwrap_or("no output");
        return Err(StackHistoryError::Failed { stack: qualified_stack.to_string(), first: first.to_string() });
    }
    StackHistory::parse(&String::from_utf8_lossy(&output.stdout)).map(Some)
}

/// Where the runner asks the backend: only a backend other copies of the repository can share.
/// The runner's own file backend under `.runner/backend` belongs to this working copy, whose
/// run history already knows everything that happened to it.
pub(crate) fn backend_is_shared(environment: &ChildEnvironment) -> bool {
    !environment.default_backend
}

/// A project's stack history on a shared backend; `None` when the backend is this copy's own,
/// the project or its stack cannot be found, or `pulumi` fails (then the runner behaves as
/// if nothing were known, which at worst runs a prerequisite once more).
pub(crate) fn project_history(
    pulumi: &Path,
    environment: &ChildEnvironment,
    provider: &Provider,
    project: &ProjectPath,
    stack: &str,
) -> Option<StackHistory> {
    if !backend_is_shared(environment) {
        return None;
    }
    let dir = provider.project_dir(project);
    let manifest = PulumiManifest::load(&dir).ok()?;
    let qualified = Backend::from_environment(environment).qualified_stack(&manifest.name, stack);
    read_stack_history(pulumi, environment, &dir, &qualified).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-stack-history").join(name);
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn reads_what_the_real_cli_printed() {
        let history = StackHistory::parse(&fixture("refresh-after-update.json")).unwrap();
        assert_eq!(history.updates.len(), 2);
        assert_eq!(history.latest().unwrap().kind, UpdateKind::Refresh);
        let up = history.latest_of(Operation::Up).unwrap();
        assert!(up.succeeded());
        assert_eq!(history.last_successful_up(), up.ended);
        assert_eq!(up.ended, Some(humantime::parse_rfc3339("2026-11-22T22:11:43Z").unwrap()));
    }

    #[test]
    fn a_failed_update_is_not_a_success() {
        let history = StackHistory::parse(&fixture("failed-update.json")).unwrap();
        let latest_up = history.latest_of(Operation::Up).unwrap();
        assert_eq!(latest_up.result, UpdateResult::Failed);
        // The earlier successful update still counts as the last success.
        assert_eq!(history.last_successful_up(), Some(humantime::parse_rfc3339("2026-11-22T22:11:43Z").unwrap()));
    }

    #[test]
    fn order_comes_from_times_not_versions() {
        let text = r#"[{"version":0,"kind":"update","result":"succeeded","startTime":"2026-01-01T00:00:00.000Z","endTime":"2026-01-01T00:00:05.000Z"},
                       {"version":0,"kind":"destroy","result":"succeeded","startTime":"2026-01-02T00:00:00.000Z","endTime":"2026-01-02T00:00:05.000Z"}]"#;
        assert_eq!(StackHistory::parse(text).unwrap().latest().unwrap().operation(), Some(Operation::Destroy));
        assert!(StackHistory::parse("not json").is_err());
        assert_eq!(StackHistory::parse("[]").unwrap().latest(), None);
    }

    #[test]
    fn every_kind_and_result_pulumi_writes_is_read_into_its_own_variant() {
        for (text, kind, operation) in [
            ("update", UpdateKind::Update, Some(Operation::Up)),
            ("refresh", UpdateKind::Refresh, Some(Operation::Refresh)),
            ("destroy", UpdateKind::Destroy, Some(Operation::Destroy)),
            ("preview", UpdateKind::Preview, None),
            ("rename", UpdateKind::Rename, None),
            ("import", UpdateKind::Import, None),
            ("resource-import", UpdateKind::ResourceImport, None),
        ] {
            let parsed = UpdateKind::parse(text);
            assert_eq!(parsed, kind);
            assert_eq!(parsed.operation(), operation, "{text}");
            assert_eq!(parsed.changes_stack(), text != "preview");
        }
        assert_eq!(UpdateKind::parse("update").as_str(), "up");
        assert_eq!(UpdateKind::parse("teleport"), UpdateKind::Other("teleport".into()));
        assert!(UpdateKind::parse("teleport").changes_stack(), "an unknown kind may have changed the stack");
        for text in ["not-started", "in-progress", "succeeded", "failed", "exploded"] {
            assert_eq!(UpdateResult::parse(text).as_str(), text);
        }
    }
}
