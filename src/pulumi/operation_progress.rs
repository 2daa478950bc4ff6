use serde::Serialize;

use super::EngineEvent;

/// Resource changes by kind, as Pulumi's summary counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ResourceChanges {
    pub created: u64,
    pub updated: u64,
    pub deleted: u64,
    pub replaced: u64,
    pub unchanged: u64,
    pub other: u64,
}

impl ResourceChanges {
    pub fn add(&mut self, op: &str, count: u64) {
        match op {
            "create" | "create-replacement" | "import" => self.created += count,
            "update" | "refresh" => self.updated += count,
            "delete" | "delete-replaced" => self.deleted += count,
            "replace" => self.replaced += count,
            "same" | "read" => self.unchanged += count,
            _ => self.other += count,
        }
    }

    pub fn total_changed(&self) -> u64 {
        self.created + self.updated + self.deleted + self.replaced
    }
}

/// What the event log said so far about one operation: drives progress lines and the summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperationProgress {
    pub steps_seen: u64,
    pub steps_done: u64,
    pub steps_failed: u64,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub summary: Option<ResourceChanges>,
    pub result: Option<String>,
    pub is_preview: Option<bool>,
    pub finished: bool,
    /// Stack outputs Pulumi marks secret; `None` until the stack's outputs were seen.
    pub secret_outputs: Option<Vec<String>>,
    /// What the language host wrote to stderr (`info#err` diagnostics): where a program's own
    /// error is when Pulumi reports no `error` diagnostic. Bounded.
    pub host_stderr: Vec<String>,
    /// Finished resource steps by kind, counted from the stream: what a killed operation did
    /// although it never wrote a summary.
    pub observed: ResourceChanges,
}

/// Enough of the language host's stderr to hold its error; the rest is in the log file.
const HOST_STDERR_LINES: usize = 40;

impl OperationProgress {
    pub fn apply(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::ResourcePre { urn, .. } if !is_stack_resource(urn) => self.steps_seen += 1,
            EngineEvent::ResourceOutputs { urn, op } if !is_stack_resource(urn) => {
                self.steps_done += 1;
                self.observed.add(op, 1);
            }
            EngineEvent::ResourceFailed { .. } => self.steps_failed += 1,
            EngineEvent::Diagnostic { severity, message, .. } => match severity.as_str() {
                "error" if !message.is_empty() => self.errors.push(message.clone()),
                "warning" if !message.is_empty() => self.warnings.push(message.clone()),
                "info#err" if !message.trim().is_empty() && self.host_stderr.len() < HOST_STDERR_LINES => {
                    self.host_stderr.push(message.trim_end().to_string())
                }
                _ => {}
            },
            EngineEvent::Summary { changes, result, is_preview, .. } => {
                self.summary = Some(*changes);
                self.result.clone_from(result);
                self.is_preview = *is_preview;
            }
            EngineEvent::StackOutputs { secret_names } => self.secret_outputs = Some(secret_names.clone()),
            EngineEvent::Cancel => self.finished = true,
            _ => {}
        }
    }
}

impl OperationProgress {
    /// Pulumi's own summary, else what the stream showed finishing (a killed operation).
    pub fn changes(&self) -> ResourceChanges {
        self.summary.unwrap_or(self.observed)
    }
}

/// The stack itself is a resource in the stream; it is not what people count.
fn is_stack_resource(urn: &str) -> bool {
    urn.contains("::pulumi:pulumi:Stack::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_without_summary_counts_what_finished() {
        let mut progress = OperationProgress::default();
        let step = |urn: &str| EngineEvent::ResourceOutputs { urn: urn.into(), op: "create".into() };
        for _ in 0..3 {
            progress.apply(&step("urn:pulumi:dev::p::pulumi:index:Stash::x"));
        }
        progress.apply(&step("urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"));
        assert_eq!(progress.changes().created, 3, "the stack itself is not counted");
        progress.apply(&EngineEvent::Summary {
            changes: ResourceChanges { created: 7, ..Default::default() },
            duration_seconds: None,
            result: None,
            is_preview: None,
        });
        assert_eq!(progress.changes().created, 7, "Pulumi's summary wins when there is one");
    }
}
