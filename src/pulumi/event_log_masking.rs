//! The event log Pulumi writes itself is masked before it stays under `.runner/`; when that
//! fails, the unmasked file is removed rather than kept.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::secrets::SecretMask;

/// The event log could not be masked; `removal` says whether the unmasked file is gone.
#[derive(Debug, thiserror::Error)]
#[error("could not mask the event log `{}`; {}", .path.display(), removal_text(.removal))]
pub(crate) struct EventLogMaskError {
    path: PathBuf,
    removal: Option<std::io::Error>,
    #[source]
    source: std::io::Error,
}

fn removal_text(removal: &Option<std::io::Error>) -> String {
    match removal {
        None => "it was removed, since it may hold secrets".to_string(),
        Some(remove) => format!("removing it failed too ({remove}): delete it by hand, it may hold secrets"),
    }
}

/// Rewrites `path` line by line with every known secret masked (atomically, bounded memory).
/// On failure the unmasked file is removed and the returned error says so.
pub(crate) fn mask_event_log(path: &Path, mask: &SecretMask) -> Result<(), EventLogMaskError> {
    let Some(dir) = path.parent() else { return Ok(()) };
    mask_event_log_via(path, mask, dir)
}

fn mask_event_log_via(path: &Path, mask: &SecretMask, temp_dir: &Path) -> Result<(), EventLogMaskError> {
    if mask.is_empty() || !path.exists() {
        return Ok(());
    }
    let result = rewrite_masked(path, mask, temp_dir);
    result.map_err(|source| EventLogMaskError {
        path: path.to_path_buf(),
        removal: std::fs::remove_file(path).err(),
        source,
    })
}

fn rewrite_masked(path: &Path, mask: &SecretMask, temp_dir: &Path) -> std::io::Result<()> {
    let file = std::fs::File::open(path)?;
    let mut masked = tempfile::NamedTempFile::new_in(temp_dir)?;
    let mut reader = std::io::BufReader::new(file);
    // Buffered: an event log has a line per engine event, thousands for a large stack.
    let mut writer = std::io::BufWriter::new(masked.as_file_mut());
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line)? > 0 {
        let text = String::from_utf8_lossy(&line);
        writer.write_all(mask.apply(&text).as_bytes())?;
        line.clear();
    }
    writer.flush()?;
    drop(writer);
    // Renamed over the original without flushing it to disk first: dependents wait for this
    // project to end, and a flush costs milliseconds on a busy machine. Readers and a crash of
    // the runner still see one whole file or the other, as before; a power loss may leave the
    // masked one empty, which the flush prevented (the rename itself was never flushed).
    masked.persist(path).map_err(|err| err.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.events.jsonl");
        std::fs::write(&path, "{\"message\":\"token hunter2-secret\"}\n").unwrap();
        mask_event_log(&path, &SecretMask::new(["hunter2-secret".to_string()])).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"message\":\"token [secret]\"}\n");
    }

    #[test]
    fn a_failed_masking_removes_the_unmasked_file_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.events.jsonl");
        std::fs::write(&path, "hunter2-secret\n").unwrap();
        let error =
            mask_event_log_via(&path, &SecretMask::new(["hunter2-secret".to_string()]), &dir.path().join("gone"))
                .unwrap_err();
        assert!(!path.exists(), "the unmasked file must not stay");
        assert!(error.to_string().contains("it was removed"), "{error}");
        let source = std::error::Error::source(&error).and_then(|source| source.downcast_ref::<std::io::Error>());
        assert_eq!(source.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{error:?}");
    }
}
