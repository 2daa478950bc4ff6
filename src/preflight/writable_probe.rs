//! Finds out before a run whether a folder can be written, by writing to it.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

#[cfg(test)]
/// Writes then removes a probe file in `dir`, or in its nearest existing ancestor when it does
/// not exist yet (nothing is created): a read-only or full filesystem, or a file in the way, is
/// found before any project runs, not after. `Err` is the system's error, its kind kept.
pub(super) fn probe_writable(dir: &Path) -> std::io::Result<()> {
    WritableProbe::default().probe(dir)
}

/// Probes several folders. A probe is flushed to disk (errors some filesystems report only
/// then) once per filesystem: a full or failing filesystem fails every folder on it alike, and
/// each flush costs milliseconds before the first project may start.
#[derive(Debug, Default)]
pub(crate) struct WritableProbe {
    flushed_devices: HashSet<u64>,
}

impl WritableProbe {
    /// Like [`probe_writable`], flushing only on a filesystem not flushed yet.
    pub(crate) fn probe(&mut self, dir: &Path) -> std::io::Result<()> {
        let mut existing = dir;
        while !existing.exists() {
            existing = match existing.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
        }
        let metadata = std::fs::metadata(existing)?;
        if !metadata.is_dir() {
            let reason = format!("`{}` is not a folder", existing.display());
            return Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, reason));
        }
        let mut probe = tempfile::Builder::new().prefix(".runner-probe-").tempfile_in(existing)?;
        std::io::Write::write_all(&mut probe, b"probe")?;
        if self.flushed_devices.insert(metadata.dev()) {
            probe.as_file().sync_all()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writable_folder_passes_and_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        probe_writable(&dir.path().join("state/history")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing is created");
    }

    #[test]
    fn a_file_in_the_way_fails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("history"), "not a folder").unwrap();
        for dir in [dir.path().join("history"), dir.path().join("history/inner")] {
            let err = probe_writable(&dir).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::NotADirectory, "{err}");
        }
    }

    #[test]
    fn every_folder_is_probed_even_when_its_filesystem_was_flushed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        std::fs::write(dir.path().join("history"), "not a folder").unwrap();
        let mut probe = WritableProbe::default();
        probe.probe(&dir.path().join("logs")).unwrap();
        assert!(probe.probe(&dir.path().join("history")).is_err(), "same filesystem, still checked");
        assert_eq!(probe.flushed_devices.len(), 1);
    }
}
