//! Pulumi's own record of a stack's operations, `pulumi stack history --json`: the history every
//! machine sharing a backend sees, where `.runner/history` only knows this working copy's runs.

use std::path::Path;
use std::time::SystemTime;

use serde::Deserialize;

use super::{Backend, ChildEnvironment, PulumiManifest};
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::provider::{ProjectPath, Provider};

/// One entry: `kind` is `update`, `refresh`, `destroy` (or `preview`, `import`...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackUpdate {
    pub kind: String,
    pub result: String,
    pub started: Option<SystemTime>,
    pub ended: Option<SystemTime>,
}

impl StackUpdate {
    /// The runner's name of the operation: `update` is `up`.
    pub fn operation(&self) -> &str {
        match self.kind.as_str() {
            "update" => "up",
            other => other,
        }
    }

    pub fn succeeded(&self) -> bool {
        self.result == "succeeded"
    }
}

/// A stack's updates, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackHistory {
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

impl StackHistory {
    /// Parses the JSON array the CLI prints. Every entry has `"version": 0` on a self-managed
    /// backend (file, S3), so the order is taken from the times, not the versions.
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: Vec<RawUpdate> = serde_json::from_str(text)
            .map_err(|err| format!("`pulumi stack history --json` printed no history: {err}"))?;
        let time = |text: &Option<String>| {
            text.as_deref().and_then(|text| humantime::parse_rfc3339_weak(text.trim_end_matches('Z')).ok())
        };
        let mut updates: Vec<StackUpdate> = raw
            .into_iter()
            .map(|entry| StackUpdate {
                started: time(&entry.start_time),
                ended: time(&entry.end_time),
                kind: entry.kind,
                result: entry.result,
            })
            .collect();
        updates.sort_by_key(|update| std::cmp::Reverse(update.ended.or(update.started)));
        Ok(Self { updates })
    }

    /// When the stack last finished an `up` successfully.
    pub fn last_successful_up(&self) -> Option<SystemTime> {
        self.updates
            .iter()
            .filter(|update| update.operation() == "up" && update.succeeded())
            .filter_map(|u| u.ended)
            .max()
    }

    /// The newest entry of `operation` (`up`, `refresh`, `destroy`), whatever its result.
    pub fn latest_of(&self, operation: &str) -> Option<&StackUpdate> {
        self.updates.iter().find(|update| update.operation() == operation)
    }

    pub fn latest(&self) -> Option<&StackUpdate> {
        self.updates.first()
    }
}

/// Reads a project's stack history from the backend the environment names. `Ok(None)`: the
/// stack does not exist there. One `pulumi` process; no passphrase is needed for it.
pub fn read_stack_history(
    pulumi: &Path,
    environment: &ChildEnvironment,
    project_dir: &Path,
    qualified_stack: &str,
) -> Result<Option<StackHistory>, String> {
    let output = ChildProcess::new(pulumi)
        .args(["stack", "history", "--json", "--non-interactive", "--stack", qualified_stack])
        .current_dir(project_dir)
        .env_clear()
        .envs(environment.vars())
        .timeout(QUERY_TIMEOUT)
        .output_blocking(&Cancellation::process());
    if let ChildEnd::SpawnFailed(reason) = &output.end {
        return Err(format!("cannot start {reason}"));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.success() {
        if stderr.contains("no stack named") {
            return Ok(None);
        }
        let first = stderr.lines().find(|line| !line.trim().is_empty()).unwrap_or("no output");
        return Err(format!("`pulumi stack history --stack {qualified_stack}` failed: {first}"));
    }
    StackHistory::parse(&String::from_utf8_lossy(&output.stdout)).map(Some)
}

/// Where the runner asks the backend: only a backend other copies of the repository can share.
/// The runner's own file backend under `.runner/backend` belongs to this working copy, whose
/// run history already knows everything that happened to it.
pub fn backend_is_shared(environment: &ChildEnvironment) -> bool {
    !environment.default_backend
}

/// A project's stack history on a shared backend; `None` when the backend is this copy's own,
/// the project or its stack cannot be found, or `pulumi` fails (then the runner behaves as
/// if nothing were known, which at worst runs a prerequisite once more).
pub fn project_history(
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
        assert_eq!(history.latest().unwrap().operation(), "refresh");
        let up = history.latest_of("up").unwrap();
        assert!(up.succeeded());
        assert_eq!(history.last_successful_up(), up.ended);
        assert_eq!(up.ended, Some(humantime::parse_rfc3339("2026-11-22T22:11:43Z").unwrap()));
    }

    #[test]
    fn a_failed_update_is_not_a_success() {
        let history = StackHistory::parse(&fixture("failed-update.json")).unwrap();
        let latest_up = history.latest_of("up").unwrap();
        assert_eq!(latest_up.result, "failed");
        // The earlier successful update still counts as the last success.
        assert_eq!(history.last_successful_up(), Some(humantime::parse_rfc3339("2026-11-22T22:11:43Z").unwrap()));
    }

    #[test]
    fn order_comes_from_times_not_versions() {
        let text = r#"[{"version":0,"kind":"update","result":"succeeded","startTime":"2026-01-01T00:00:00.000Z","endTime":"2026-01-01T00:00:05.000Z"},
                       {"version":0,"kind":"destroy","result":"succeeded","startTime":"2026-01-02T00:00:00.000Z","endTime":"2026-01-02T00:00:05.000Z"}]"#;
        assert_eq!(StackHistory::parse(text).unwrap().latest().unwrap().operation(), "destroy");
        assert!(StackHistory::parse("not json").is_err());
        assert_eq!(StackHistory::parse("[]").unwrap().latest(), None);
    }
}
