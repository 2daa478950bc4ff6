//! How Pulumi's engine events and operation names fill the runner's progress types.

use super::EngineEvent;
use crate::execute::{OperationProgress, ResourceChanges};

impl ResourceChanges {
    /// Counts `count` steps of Pulumi's operation `op` (`create`, `delete-replaced`, ...).
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
}

impl OperationProgress {
    pub fn apply(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::ResourcePre { urn, .. } if !is_stack_resource(urn) => self.steps_seen += 1,
            EngineEvent::ResourceOutputs { urn, .. } if !is_stack_resource(urn) => self.steps_done += 1,
            EngineEvent::ResourceFailed { .. } => self.steps_failed += 1,
            EngineEvent::Diagnostic { severity, message, .. } => match severity.as_str() {
                "error" if !message.is_empty() => self.errors.push(message.clone()),
                "warning" if !message.is_empty() => self.warnings.push(message.clone()),
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

/// The stack itself is a resource in the stream; it is not what people count.
fn is_stack_resource(urn: &str) -> bool {
    urn.contains("::pulumi:pulumi:Stack::")
}
