//! Which resources an operation changes, read from the event log `pulumi --event-log` wrote.
//!
//! A preview names the step in `resourcePreEvent` and `resOutputsEvent`; `refresh --preview-only`
//! announces every resource as `refresh` and says what drifted only in `resOutputsEvent`. A
//! replacement is three steps (`create-replacement`, `replace`, `delete-replaced`) for one change.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;

pub(super) use crate::execute::{ChangeKind, ResourceChange};

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "resourcePreEvent")]
    pre: Option<Step>,
    #[serde(rename = "resOutputsEvent")]
    outputs: Option<Step>,
}

#[derive(Deserialize)]
struct Step {
    metadata: Metadata,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    op: String,
    #[serde(default)]
    urn: String,
    #[serde(rename = "type", default)]
    resource_type: String,
    #[serde(default)]
    diffs: Option<Vec<String>>,
}

/// Collects resource changes from event lines, one entry per resource.
#[derive(Debug, Default)]
pub(super) struct ResourceChangeCollector {
    /// By URN; the step that finished (`resOutputsEvent`) wins over the one announced.
    by_urn: BTreeMap<String, (ResourceChange, bool)>,
}

impl ResourceChangeCollector {
    pub(super) fn add_line(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() || !(line.contains("resourcePreEvent") || line.contains("resOutputsEvent")) {
            return;
        }
        let Ok(parsed) = serde_json::from_str::<Line>(line) else { return };
        let (step, finished) = match (parsed.pre, parsed.outputs) {
            (_, Some(step)) => (step, true),
            (Some(step), None) => (step, false),
            (None, None) => return,
        };
        let metadata = step.metadata;
        if metadata.urn.contains("::pulumi:pulumi:Stack::") {
            return;
        }
        let kind = ChangeKind::from_op(&metadata.op);
        match kind {
            Some(kind) => {
                let properties = metadata.diffs.unwrap_or_default();
                let resource_type = if metadata.resource_type.is_empty() {
                    type_of(&metadata.urn).to_string()
                } else {
                    metadata.resource_type
                };
                let change = ResourceChange {
                    kind,
                    name: name_of(&metadata.urn).to_string(),
                    resource_type,
                    urn: metadata.urn.clone(),
                    properties,
                };
                let entry = self.by_urn.entry(metadata.urn).or_insert((change.clone(), finished));
                // A replacement's steps may arrive as create-replacement, replace, delete-replaced.
                let merged_kind = if entry.0.kind == ChangeKind::Replace { ChangeKind::Replace } else { kind };
                if finished || !entry.1 || merged_kind == ChangeKind::Replace {
                    let properties = if change.properties.is_empty() {
                        std::mem::take(&mut entry.0.properties)
                    } else {
                        change.properties
                    };
                    entry.0 = ResourceChange { kind: merged_kind, properties, ..change };
                    entry.1 = entry.1 || finished;
                }
            }
            // A finished step that changed nothing overrides an announced change (refresh, same).
            None if finished => {
                if let Some(entry) = self.by_urn.get(&metadata.urn) {
                    if !entry.1 {
                        self.by_urn.remove(&metadata.urn);
                    }
                }
            }
            None => {}
        }
    }

    /// Destructive changes first (deletes, then replaces), then updates and creates, by name.
    pub(super) fn finish(self) -> Vec<ResourceChange> {
        let mut changes: Vec<ResourceChange> = self.by_urn.into_values().map(|(change, _)| change).collect();
        changes.sort_by(|a, b| (a.kind, &a.name, &a.urn).cmp(&(b.kind, &b.name, &b.urn)));
        changes
    }
}

/// The changed resources an event log names; an unreadable or missing log names none.
pub(crate) fn read_resource_changes(path: &Path) -> Vec<ResourceChange> {
    let Ok(file) = std::fs::File::open(path) else { return Vec::new() };
    let mut collector = ResourceChangeCollector::default();
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        collector.add_line(&String::from_utf8_lossy(&line));
        line.clear();
    }
    collector.finish()
}

/// `urn:pulumi:dev::proj::parent$type::name` -> `name` (names may contain `::`-free text only).
fn name_of(urn: &str) -> &str {
    urn.splitn(4, "::").nth(3).unwrap_or(urn)
}

/// The resource's own type: the last `$`-separated part of the type segment.
fn type_of(urn: &str) -> &str {
    let segment = urn.split("::").nth(2).unwrap_or("");
    segment.rsplit('$').next().unwrap_or(segment)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<ResourceChange> {
        read_resource_changes(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pulumi-events").join(name))
    }

    fn described(changes: &[ResourceChange]) -> Vec<String> {
        changes.iter().map(|c| format!("{} {} {}", c.kind.as_str(), c.resource_type, c.name)).collect()
    }

    #[test]
    fn a_real_preview_names_every_create_update_replace_and_delete_deletes_first() {
        let changes = fixture("teamflows__preview-mixed.jsonl");
        assert_eq!(
            described(&changes),
            [
                "delete tokenauth:index:File removed",
                "replace tokenauth:index:File moved",
                "update tokenauth:index:File edited",
                "create tokenauth:index:File added",
            ]
        );
        assert_eq!(changes[1].properties, ["path"]);
        assert_eq!(changes[2].properties, ["content"]);
    }

    #[test]
    fn a_real_first_preview_creates_everything_but_the_stack() {
        let changes = fixture("teamflows__preview-create.jsonl");
        assert!(changes.iter().all(|c| c.kind == ChangeKind::Create), "{changes:?}");
        let names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"edited") && names.contains(&"removed") && names.contains(&"default"), "{names:?}");
    }

    #[test]
    fn real_refresh_preview_reports_drift_only_where_the_resource_changed() {
        assert_eq!(
            described(&fixture("teamflows__refresh-drift.jsonl")),
            ["delete tokenauth:index:File added", "update tokenauth:index:File edited"]
        );
        assert!(fixture("teamflows__refresh-nodrift.jsonl").is_empty());
    }

    #[test]
    fn a_successful_up_without_changes_names_none() {
        // `same` steps everywhere: nothing to report.
        let mut collector = ResourceChangeCollector::default();
        collector.add_line(r#"{"resourcePreEvent":{"metadata":{"op":"same","urn":"urn:pulumi:d::p::t::n"}}}"#);
        assert!(collector.finish().is_empty());
    }

    #[test]
    fn names_and_types_come_from_urns_with_parents() {
        let urn = "urn:pulumi:dev::proj::my:comp:Thing$aws:s3/bucket:Bucket::logs::x";
        assert_eq!(name_of(urn), "logs::x");
        assert_eq!(type_of(urn), "aws:s3/bucket:Bucket");
    }

    #[test]
    fn garbage_is_ignored() {
        let mut collector = ResourceChangeCollector::default();
        for line in ["", "not json", r#"{"resourcePreEvent":5}"#, "{\"resOutputsEvent\":{}}"] {
            collector.add_line(line);
        }
        assert!(collector.finish().is_empty());
    }
}
