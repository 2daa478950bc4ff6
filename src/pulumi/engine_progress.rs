//! How Pulumi's engine events and operation names fill the runner's progress types.

use super::EngineEvent;
use crate::execute::{OperationProgress, ResourceChanges, StepCount, StepOp};

impl ResourceChanges {
    /// Counts `count` steps of Pulumi's operation `op` (`create`, `delete-replaced`, ...).
    pub fn add(&mut self, op: &str, count: u64) {
        let column = match StepOp::parse(op).map(StepOp::counted_as) {
            Some(StepCount::Created) => &mut self.created,
            Some(StepCount::Updated) => &mut self.updated,
            Some(StepCount::Deleted) => &mut self.deleted,
            Some(StepCount::Replaced) => &mut self.replaced,
            Some(StepCount::Unchanged) => &mut self.unchanged,
            Some(StepCount::Other) | None => &mut self.other,
        };
        *column += count;
    }
}

/// Enough of the language host's stderr to hold its error; the rest is in the log file.
const HOST_STDERR_LINES: usize = 40;

impl OperationProgress {
    pub fn apply(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::ResourcePre { urn, .. } if !is_stack_resource(urn) => self.steps_seen += 1,
            EngineEvent::ResourceOutputs { urn, op } if !is_stack_resource(urn) => {
                self.steps_done += 1;
                // Pulumi's summary of an `up` leaves out what it only read (a stack reference).
                if !is_default_provider(urn) && StepOp::parse(op) != Some(StepOp::Read) {
                    self.observed.add(op, 1);
                }
            }
            // A preview reports the stack's step twice: it is one resource, counted once.
            EngineEvent::ResourceOutputs { op, .. } | EngineEvent::StackOutputs { op, .. } => {
                self.stack_step = ResourceChanges::default();
                self.stack_step.add(op, 1);
                if let EngineEvent::StackOutputs { secret_names, outputs, .. } = event {
                    self.secret_outputs = Some(secret_names.clone());
                    self.stack_outputs = Some(outputs.clone());
                }
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
            EngineEvent::Cancel => self.finished = true,
            _ => {}
        }
    }
}

/// The stack itself is a resource in the stream; it is not what people count.
fn is_stack_resource(urn: &str) -> bool {
    urn.contains("::pulumi:pulumi:Stack::")
}

/// A provider the engine made on its own (`pulumi:providers:aws::default_6_0_0`): Pulumi's
/// summary leaves it out, so the counts of a stream without one do too.
fn is_default_provider(urn: &str) -> bool {
    urn.split_once("::pulumi:providers:")
        .and_then(|(_, rest)| rest.split_once("::"))
        .is_some_and(|(_, name)| name == "default" || name.starts_with("default_"))
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
        assert_eq!(progress.changes().created, 6, "Pulumi's summary wins, less the stack it counts");
    }

    fn read_fixture(name: &str) -> OperationProgress {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-events").join(name);
        let mut progress = OperationProgress::default();
        for line in std::fs::read_to_string(path).unwrap().lines() {
            if let Some(event) = crate::pulumi::parse_event_line(line) {
                progress.apply(&event);
            }
        }
        progress
    }

    /// The real CLI's summary counts the stack as a resource: the same project of two resources
    /// counts two for every operation, as the stream's own steps do.
    #[test]
    fn every_operation_of_the_real_cli_counts_the_programs_resources() {
        let count = |name: &str| read_fixture(&format!("real__two-stashes-{name}.jsonl")).changes();
        let two = |field: fn(&mut ResourceChanges) -> &mut u64| {
            let mut changes = ResourceChanges::default();
            *field(&mut changes) = 2;
            changes
        };
        assert_eq!(count("up-create"), two(|c| &mut c.created));
        for name in ["up-unchanged", "refresh", "drift", "preview"] {
            assert_eq!(count(name), two(|c| &mut c.unchanged), "{name}");
        }
        assert_eq!(count("destroy"), two(|c| &mut c.deleted));
        for name in ["up-unchanged", "refresh", "drift"] {
            let progress = read_fixture(&format!("real__two-stashes-{name}.jsonl"));
            assert_eq!(progress.observed, progress.changes(), "the live count is the final one: {name}");
        }
    }

    /// Captured from the real CLI (tests/fixtures/pulumi-events/README.md): the stack's op is
    /// `same` either way; a changed output shows only in its value, a secret never does.
    #[test]
    fn stack_outputs_of_the_real_cli_show_a_change_only_in_their_values() {
        let read = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-events").join(name);
            let mut progress = OperationProgress::default();
            for line in std::fs::read_to_string(path).unwrap().lines() {
                if let Some(event) = crate::pulumi::parse_event_line(line) {
                    progress.apply(&event);
                }
            }
            progress.stack_outputs.unwrap()
        };
        let (same, changed) = (read("real__up-outputs-unchanged.jsonl"), read("real__up-output-changed.jsonl"));
        assert_eq!(same["token"], "[secret]", "a secret has one form, whatever the CLI wrote");
        assert_eq!(same["token"], changed["token"]);
        assert_ne!(same["name"], changed["name"], "the plain output that changed");
    }
}
