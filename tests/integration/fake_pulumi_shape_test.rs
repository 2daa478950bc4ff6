//! The test double's event logs must look like the real CLI's: every event kind it writes, and
//! every field of those events, must occur in the streams captured from the real `pulumi`
//! (`tests/fixtures/pulumi-events/`). Otherwise tests that inject faults through the double
//! would prove things about a format the real CLI never writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{fake_pulumi_dir, repository};

/// Maps whose keys are data (resource properties, config keys, operation counts), not format.
const FREE_FORM: &[&str] = &["inputs", "outputs", "config", "resourceChanges", "PolicyPacks", "propertyDependencies"];

/// Every field path of an event payload, with its JSON type (`null` matches any type).
fn shape(value: &Value, path: &str, into: &mut BTreeMap<String, BTreeSet<&'static str>>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    into.entry(path.to_string()).or_default().insert(kind);
    let leaf = FREE_FORM.iter().any(|name| path.ends_with(&format!(".{name}")));
    match value {
        Value::Object(map) if !leaf => map.iter().for_each(|(key, child)| shape(child, &format!("{path}.{key}"), into)),
        Value::Array(items) => items.iter().for_each(|item| shape(item, &format!("{path}[]"), into)),
        _ => {}
    }
}

/// The shapes of every line of a stream; checks the envelope every real line has.
fn stream_shapes(file: &Path) -> BTreeMap<String, BTreeSet<&'static str>> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert!(!lines.is_empty(), "{} is empty", file.display());
    let mut shapes = BTreeMap::new();
    for line in &lines {
        let object = line.as_object().unwrap();
        assert!(object["sequence"].is_number() && object["timestamp"].is_number(), "{}: {line}", file.display());
        let payloads: Vec<_> = object.keys().filter(|key| *key != "sequence" && *key != "timestamp").collect();
        assert_eq!(payloads.len(), 1, "{}: one payload per line: {line}", file.display());
        shape(&object[payloads[0]], payloads[0], &mut shapes);
    }
    assert!(lines.last().unwrap().get("cancelEvent").is_some(), "{}: cancelEvent ends a stream", file.display());
    shapes
}

/// Runs the double's `op` in `dir`, scripted by `script`; returns its event log.
fn fake_event_log(dir: &Path, op: &str, script: &str, name: &str) -> PathBuf {
    let log = dir.join(format!("{name}.jsonl"));
    std::fs::write(dir.join("script.json"), script).unwrap();
    let mut args = vec![op, "--stack", "organization/shape/dev", "--non-interactive"];
    if op != "preview" {
        args.extend(["--yes", "--skip-preview"]);
    }
    let status = Command::new(fake_pulumi_dir().join("pulumi"))
        .args(args)
        .arg("--event-log")
        .arg(&log)
        .current_dir(dir)
        .env("FAKE_PULUMI_SCRIPT", dir.join("script.json"))
        .env("FAKE_PULUMI_STATE", dir.join("state"))
        .output()
        .unwrap()
        .status;
    assert!(status.code().is_some(), "{name}: the double ran to an exit code");
    log
}

#[test]
fn the_test_doubles_event_logs_have_the_real_clis_kinds_and_fields() {
    let mut real: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let fixtures = repository().join("tests/fixtures/pulumi-events");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "jsonl") {
            for (field, kinds) in stream_shapes(&path) {
                real.entry(field).or_default().extend(kinds);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Pulumi.yaml"), "name: shape\nruntime: yaml\n").unwrap();
    let fine = r#"{"default": {"resources": 3}}"#;
    let failing = r#"{"default": {"resources": 3, "fail": "boom"}}"#;
    let logs = [
        fake_event_log(dir.path(), "up", fine, "up-create"),
        fake_event_log(dir.path(), "up", fine, "up-same"),
        fake_event_log(dir.path(), "preview", fine, "preview"),
        fake_event_log(dir.path(), "refresh", fine, "refresh"),
        fake_event_log(dir.path(), "up", failing, "up-failed"),
        fake_event_log(dir.path(), "destroy", fine, "destroy"),
    ];
    let mut problems = Vec::new();
    let mut fake_kinds = BTreeSet::new();
    for log in &logs {
        for (field, kinds) in stream_shapes(log) {
            fake_kinds.insert(field.split('.').next().unwrap().to_string());
            match real.get(&field) {
                None => problems.push(format!("{}: `{field}` never occurs in the real streams", log.display())),
                Some(real_kinds) => {
                    for kind in kinds.iter().filter(|kind| **kind != "null" && !real_kinds.contains(*kind)) {
                        problems.push(format!("{}: `{field}` is a {kind}, never in the real streams", log.display()));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "the double writes what the real CLI does not:\n{}", problems.join("\n"));
    // What the runner reads must be exercised by the double too, or the comparison proves little.
    for kind in
        ["preludeEvent", "resourcePreEvent", "resOutputsEvent", "diagnosticEvent", "summaryEvent", "cancelEvent"]
    {
        assert!(fake_kinds.contains(kind), "the double never writes `{kind}`");
    }
}
