//! Reads the engine events `pulumi --event-log FILE` writes, while the file grows.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::ResourceChanges;

/// The events the runner acts on; everything else in the stream is skipped.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// A resource step is about to run.
    ResourcePre {
        urn: String,
        op: String,
    },
    /// A resource step finished.
    ResourceOutputs {
        urn: String,
        op: String,
    },
    /// The stack's own step (`op`) and outputs, each secret as `[secret]`, and the secrets' names.
    StackOutputs {
        op: String,
        secret_names: Vec<String>,
        outputs: serde_json::Map<String, Value>,
    },
    /// A resource step failed.
    ResourceFailed {
        urn: String,
        op: String,
    },
    Diagnostic {
        severity: String,
        message: String,
        urn: Option<String>,
    },
    Summary {
        changes: ResourceChanges,
        duration_seconds: Option<u64>,
        result: Option<String>,
        is_preview: Option<bool>,
    },
    /// Always the last event of a stream.
    Cancel,
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "resourcePreEvent")]
    resource_pre: Option<StepEvent>,
    #[serde(rename = "resOutputsEvent")]
    resource_outputs: Option<StepEvent>,
    #[serde(rename = "resOpFailedEvent")]
    resource_failed: Option<StepEvent>,
    #[serde(rename = "diagnosticEvent")]
    diagnostic: Option<DiagnosticEvent>,
    #[serde(rename = "summaryEvent")]
    summary: Option<SummaryEvent>,
    #[serde(rename = "cancelEvent")]
    cancel: Option<Value>,
}

#[derive(Deserialize)]
struct StepEvent {
    metadata: StepMetadata,
}

#[derive(Deserialize)]
struct StepMetadata {
    #[serde(default)]
    op: String,
    #[serde(default)]
    urn: String,
    #[serde(default)]
    new: Option<StepState>,
}

#[derive(Deserialize)]
struct StepState {
    #[serde(default)]
    outputs: Option<serde_json::Map<String, Value>>,
}

#[derive(Deserialize)]
struct DiagnosticEvent {
    #[serde(default)]
    urn: Option<String>,
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    message: String,
    #[serde(default)]
    severity: String,
    #[serde(default)]
    ephemeral: bool,
}

#[derive(Deserialize)]
struct SummaryEvent {
    #[serde(rename = "resourceChanges", default)]
    resource_changes: Option<std::collections::BTreeMap<String, i64>>,
    #[serde(rename = "durationSeconds")]
    duration_seconds: Option<u64>,
    result: Option<String>,
    #[serde(rename = "isPreview")]
    is_preview: Option<bool>,
}

/// Parses one line of the stream; `None` for blank lines, other event kinds and garbage.
pub fn parse_event_line(line: &str) -> Option<EngineEvent> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let parsed: Line = serde_json::from_str(line).ok()?;
    if let Some(step) = parsed.resource_pre {
        return Some(EngineEvent::ResourcePre { urn: step.metadata.urn, op: step.metadata.op });
    }
    if let Some(step) = parsed.resource_outputs {
        if step.metadata.urn.contains("::pulumi:pulumi:Stack::") {
            if let Some(mut outputs) = step.metadata.new.and_then(|state| state.outputs) {
                let secret = |(name, value): (&String, &mut Value)| {
                    let hidden = is_secret_value(value).then(|| std::mem::replace(value, "[secret]".into()));
                    hidden.map(|_| name.clone())
                };
                let secret_names: Vec<String> = outputs.iter_mut().filter_map(secret).collect();
                return Some(EngineEvent::StackOutputs { op: step.metadata.op, secret_names, outputs });
            }
        }
        return Some(EngineEvent::ResourceOutputs { urn: step.metadata.urn, op: step.metadata.op });
    }
    if let Some(step) = parsed.resource_failed {
        return Some(EngineEvent::ResourceFailed { urn: step.metadata.urn, op: step.metadata.op });
    }
    if let Some(diagnostic) = parsed.diagnostic {
        if diagnostic.ephemeral {
            return None;
        }
        let _ = diagnostic.prefix;
        return Some(EngineEvent::Diagnostic {
            severity: diagnostic.severity,
            message: strip_color_tags(&diagnostic.message).trim_end().to_string(),
            urn: diagnostic.urn.filter(|urn| !urn.is_empty()),
        });
    }
    if let Some(summary) = parsed.summary {
        let mut changes = ResourceChanges::default();
        for (op, count) in summary.resource_changes.unwrap_or_default() {
            // Clamped: several kinds add into one counter, and huge counts must not overflow it.
            changes.add(&op, count.clamp(0, i64::from(u32::MAX)) as u64);
        }
        return Some(EngineEvent::Summary {
            changes,
            duration_seconds: summary.duration_seconds,
            result: summary.result,
            is_preview: summary.is_preview,
        });
    }
    parsed.cancel.map(|_| EngineEvent::Cancel)
}

/// Pulumi's signature key marking a serialized secret (`sig.Secret` in its SDK).
const SECRET_SIGNATURE: &str = "4dabf18193072939515e22adb298388d";

/// Whether an event log value is a secret: v3.259.0 writes an object `{"<signature>": "1b47...",
/// "ciphertext": "[secret]"}`; older CLIs and `stack output --json` the string `[secret]`.
pub(super) fn is_secret_value(value: &Value) -> bool {
    match value {
        Value::String(text) => text == "[secret]",
        Value::Object(object) => object.contains_key(SECRET_SIGNATURE),
        _ => false,
    }
}

/// Removes Pulumi's `<{%fg 1%}>`-style colour markup.
pub(super) fn strip_color_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<{%") {
        out.push_str(&rest[..start]);
        match rest[start..].find("%}>") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Follows a growing event log: each `poll` returns the complete lines written since the last one.
#[derive(Debug)]
pub struct EventLogTail {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

/// A single event line longer than this is not progress information; it is skipped.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

impl EventLogTail {
    pub fn new(path: &Path) -> Self {
        Self { path: path.to_path_buf(), offset: 0, partial: Vec::new() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads what was appended; a missing file (Pulumi has not started writing) yields nothing.
    pub fn poll(&mut self) -> Vec<EngineEvent> {
        let Ok(mut file) = std::fs::File::open(&self.path) else { return Vec::new() };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut chunk = Vec::new();
        if file.read_to_end(&mut chunk).is_err() {
            return Vec::new();
        }
        self.offset += chunk.len() as u64;
        let mut events = Vec::new();
        for byte in chunk {
            if byte == b'\n' {
                if let Ok(line) = std::str::from_utf8(&self.partial) {
                    events.extend(parse_event_line(line));
                }
                self.partial.clear();
            } else if self.partial.len() < MAX_LINE_BYTES {
                self.partial.push(byte);
            }
        }
        events
    }

    /// Reads the rest, including a last line without a newline (the writer has exited).
    pub fn finish(&mut self) -> Vec<EngineEvent> {
        let mut events = self.poll();
        if let Ok(line) = std::str::from_utf8(&self.partial) {
            events.extend(parse_event_line(line));
        }
        self.partial.clear();
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pulumi::OperationProgress;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-events").join(name)
    }

    fn read_all(name: &str) -> OperationProgress {
        let mut tail = EventLogTail::new(&fixture(name));
        let mut progress = OperationProgress::default();
        for event in tail.finish() {
            progress.apply(&event);
        }
        progress
    }

    #[test]
    fn every_fixture_parses_to_a_closed_stream() {
        for entry in std::fs::read_dir(fixture("")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap();
                let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
                let mut tail = EventLogTail::new(&path);
                let events = tail.finish();
                assert!(!events.is_empty(), "{}", path.display());
                assert!(events.len() <= lines);
                assert_eq!(events.last(), Some(&EngineEvent::Cancel), "{}", path.display());
            }
        }
    }

    #[test]
    fn successful_up_counts_steps_and_summary() {
        let progress = read_all("display__up.jsonl");
        assert!(progress.finished);
        assert!(progress.summary.is_some());
        assert!(progress.steps_seen > 0);
        assert_eq!(progress.steps_done, progress.steps_seen);
        assert!(progress.errors.is_empty());
    }

    #[test]
    fn program_error_is_reported_without_colour_markup() {
        let progress = read_all("lifecycle__program-error-diagnostic.jsonl");
        assert_eq!(progress.errors, vec!["an unhandled error occurred: program error".to_string()]);
        assert_eq!(progress.result.as_deref(), Some("failed"));
    }

    #[test]
    fn failed_resource_operation_is_counted() {
        let progress = read_all("display__failed-update-resOpFailed.jsonl");
        assert!(progress.steps_failed >= 1, "{progress:?}");
    }

    #[test]
    fn preview_summary_is_recognised() {
        let progress = read_all("lifecycle__preview-succeeded.jsonl");
        assert_eq!(progress.is_preview, Some(true));
    }

    #[test]
    fn delete_failure_has_an_error_diagnostic() {
        let progress = read_all("lifecycle__destroy-delete-fails.jsonl");
        assert!(!progress.errors.is_empty(), "{progress:?}");
    }

    #[test]
    fn warnings_are_not_errors() {
        let progress = read_all("lifecycle__warning-diagnostics.jsonl");
        assert!(progress.errors.is_empty());
        assert!(!progress.warnings.is_empty());
    }

    #[test]
    fn interrupted_up_still_closes() {
        let progress = read_all("display__up-interrupted.jsonl");
        assert!(progress.finished);
    }

    #[test]
    fn partial_lines_wait_for_their_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let line = r#"{"sequence":1,"timestamp":1,"cancelEvent":{}}"#;
        std::fs::write(&path, &line[..10]).unwrap();
        let mut tail = EventLogTail::new(&path);
        assert!(tail.poll().is_empty());
        std::fs::write(&path, format!("{line}\n")).unwrap();
        assert_eq!(tail.poll(), vec![EngineEvent::Cancel]);
    }

    #[test]
    fn garbage_lines_are_skipped() {
        assert_eq!(parse_event_line("not json"), None);
        assert_eq!(parse_event_line(r#"{"stdoutEvent":{"message":"hi"}}"#), None);
        assert_eq!(parse_event_line("\u{0}\u{1}"), None);
    }

    #[test]
    fn huge_summary_counts_do_not_overflow() {
        let max = i64::MAX;
        let line = format!(
            r#"{{"summaryEvent":{{"resourceChanges":{{"create":{max},"import":{max},"create-replacement":{max},"same":-5}}}}}}"#
        );
        let Some(EngineEvent::Summary { changes, .. }) = parse_event_line(&line) else { panic!("a summary") };
        assert_eq!(changes.created, 3 * u64::from(u32::MAX));
        assert_eq!(changes.unchanged, 0);
        let mut progress = OperationProgress::default();
        progress.apply(&EngineEvent::Summary { changes, duration_seconds: None, result: None, is_preview: None });
        assert!(progress.summary.unwrap().total_changed() > 0);
    }

    #[test]
    fn secret_outputs_of_the_real_cli_are_recognised() {
        let progress = read_all("real__up-secret-output.jsonl");
        assert_eq!(progress.secret_outputs, Some(vec!["token".to_string()]));
    }

    #[test]
    fn a_cancelled_destroy_of_the_real_cli_says_succeeded() {
        // Why the runner cannot trust the summary once it signalled Pulumi.
        let progress = read_all("real__destroy-cancelled-exit-0.jsonl");
        assert_eq!(progress.result.as_deref(), Some("succeeded"));
        assert_eq!(progress.summary.map(|s| s.deleted), Some(9));
    }

    #[test]
    fn a_real_program_error_is_the_first_error() {
        let progress = read_all("real__up-program-error.jsonl");
        assert!(progress.errors[0].starts_with("Error reading file at path ./missing-file"), "{progress:?}");
    }

    #[test]
    fn the_language_hosts_stderr_is_kept_when_there_is_no_error_diagnostic() {
        let progress = read_all("real__up-language-host-stderr.jsonl");
        assert!(progress.errors.is_empty());
        assert_eq!(progress.host_stderr[0], "Error: resource, variable, or config value \"undefined\" not found");
        assert_eq!(progress.host_stderr.len(), 3);
    }

    #[test]
    fn strips_colour_tags() {
        assert_eq!(strip_color_tags("<{%fg 1%}>error: <{%reset%}>boom"), "error: boom");
        assert_eq!(strip_color_tags("plain <{% unterminated"), "plain <{% unterminated");
    }
}
