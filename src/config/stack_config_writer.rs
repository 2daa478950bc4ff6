use std::path::Path;

use super::StackConfigEdit;
use crate::error::{Result, UserError};

/// Adds `values` under `config:` in a stack file, keeping every line the user wrote as written
/// (see [`StackConfigEdit`]), or refuses before writing anything. Creates the file when it is
/// missing. Writes atomically.
pub fn add_stack_config_values(path: &Path, existing: Option<&str>, values: &[(String, String)]) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let text = StackConfigEdit::new(path, existing.unwrap_or_default()).add(values)?;
    write_atomically(path, text.as_bytes())
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
    let unwritable = |err: std::io::Error| UserError::Unwritable { path: path.to_path_buf(), source: err };
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
        let parsed: serde_norway::Value = serde_norway::from_str(&text).unwrap();
        assert_eq!(parsed["config"]["eks:k8s_version"], serde_norway::Value::String("1.20".into()));
    }

    #[test]
    fn creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/Pulumi.dev.yaml");
        add_stack_config_values(&path, None, &[("local:cidr".into(), "10.0.0.0/16".into())]).unwrap();
        let parsed: serde_norway::Value = serde_norway::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(parsed["config"]["local:cidr"], serde_norway::Value::String("10.0.0.0/16".into()));
    }

    #[test]
    fn adds_a_config_section_when_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Pulumi.dev.yaml");
        add_stack_config_values(&path, Some("encryptionsalt: abc\nconfig: {}\n"), &[("a:b".into(), "c".into())])
            .unwrap();
        let parsed: serde_norway::Value = serde_norway::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(parsed["config"]["a:b"], serde_norway::Value::String("c".into()));
        assert_eq!(parsed["encryptionsalt"], serde_norway::Value::String("abc".into()));
    }

    /// A folder the runner cannot write into (a file stands where it would be; as root no
    /// permission is refused): the error keeps the system's `io::Error` as its source.
    #[test]
    fn an_unwritable_folder_keeps_the_io_error_as_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("history"), "a file, not a folder").unwrap();
        let path = dir.path().join("history/x.json");
        let err = write_atomically(&path, b"{}").unwrap_err();
        let source = std::error::Error::source(&err).and_then(|source| source.downcast_ref::<std::io::Error>());
        let source = source.unwrap_or_else(|| panic!("no `io::Error` source: {err:?}"));
        assert_eq!(source.kind(), std::io::ErrorKind::AlreadyExists, "{source:?}");
        assert_eq!(err.to_string(), format!("cannot write `{}`", path.display()));
        assert_eq!(err.chain().to_string(), format!("{err}: {source}"));
    }
}
