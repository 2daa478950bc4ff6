use std::path::Path;

use serde_yaml::{Mapping, Value};

use crate::error::{Result, UserError};

/// Adds `values` under `config:` in a stack file, keeping every existing line (and so its
/// comments) as written. Creates the file when it is missing. Writes atomically.
pub fn add_stack_config_values(path: &Path, existing: Option<&str>, values: &[(String, String)]) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let mut new_lines = String::new();
    for (key, value) in values {
        let mut entry = Mapping::new();
        entry.insert(Value::String(key.clone()), Value::String(value.clone()));
        let rendered = serde_yaml::to_string(&entry).map_err(|err| UserError::Internal(err.to_string()))?;
        for line in rendered.lines() {
            new_lines.push_str("  ");
            new_lines.push_str(line);
            new_lines.push('\n');
        }
    }
    let text = match existing {
        None => format!("config:\n{new_lines}"),
        Some(text) => insert_under_config(text, &new_lines),
    };
    write_atomically(path, text.as_bytes())
}

fn insert_under_config(text: &str, new_lines: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if let Some(at) = lines.iter().position(|line| line.trim_end() == "config:") {
        let mut out: String = lines[..=at].concat();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(new_lines);
        out.push_str(&lines[at + 1..].concat());
        return out;
    }
    let mut out: String = lines
        .iter()
        .filter(|line| !matches!(line.trim_end(), "config: {}" | "config:{}" | "config: null" | "config: ~"))
        .copied()
        .collect();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("config:\n");
    out.push_str(new_lines);
    out
}

/// Temp file in the same folder, synced, then renamed: a reader never sees half a file, and a
/// crash leaves the old version or the new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, true)
}

/// Like [`write_atomically`] without the flush to disk, which costs milliseconds on a busy
/// machine: readers and a crash of the runner still see a whole file, but a power loss may
/// leave an empty one. Only for files whose loss the reader tolerates.
pub fn write_atomically_unflushed(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, false)
}

fn replace_file(path: &Path, bytes: &[u8], flush: bool) -> Result<()> {
    let unwritable = |err: std::io::Error| UserError::Unwritable { path: path.to_path_buf(), reason: err.to_string() };
    // A bare file name (`--report json=report.json`) has an empty parent: the current folder.
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(unwritable)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(unwritable)?;
    std::io::Write::write_all(&mut file, bytes).map_err(unwritable)?;
    if flush {
        file.as_file().sync_all().map_err(unwritable)?;
    }
    file.persist(path).map_err(|err| unwritable(err.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_comments_and_existing_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Pulumi.dev.yaml");
        let existing = "# my stack\nconfig:\n  # region comment\n  aws:region: us-west-2\n";
        add_stack_config_values(&path, Some(existing), &[("eks:k8s_version".into(), "1.20".into())]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("# my stack") && text.contains("# region comment") && text.contains("aws:region: us-west-2")
        );
        let parsed: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(parsed["config"]["eks:k8s_version"], serde_yaml::Value::String("1.20".into()));
    }

    #[test]
    fn creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/Pulumi.dev.yaml");
        add_stack_config_values(&path, None, &[("local:cidr".into(), "10.0.0.0/16".into())]).unwrap();
        let parsed: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(parsed["config"]["local:cidr"], serde_yaml::Value::String("10.0.0.0/16".into()));
    }

    #[test]
    fn adds_a_config_section_when_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Pulumi.dev.yaml");
        add_stack_config_values(&path, Some("encryptionsalt: abc\nconfig: {}\n"), &[("a:b".into(), "c".into())])
            .unwrap();
        let parsed: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(parsed["config"]["a:b"], serde_yaml::Value::String("c".into()));
        assert_eq!(parsed["encryptionsalt"], serde_yaml::Value::String("abc".into()));
    }
}
