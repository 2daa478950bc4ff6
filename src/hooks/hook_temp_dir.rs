//! The private folder a `command` hook's outputs file lives in. The outputs may hold secrets in
//! plain text, so the folder is the runner's alone (0700, the file 0600), goes when the hook
//! ends however it ends, and what a killed runner (kill -9) left is removed by the next run.

use std::path::{Path, PathBuf};

const PREFIX: &str = "runner-hook-";

pub(crate) struct HookTempDir {
    dir: tempfile::TempDir,
}

impl HookTempDir {
    /// `runner-hook-<pid>-XXXXXX` in the system's temporary folder: the pid tells a later run
    /// whether its runner is gone.
    pub(crate) fn create() -> std::io::Result<Self> {
        Self::create_in(&std::env::temp_dir())
    }

    fn create_in(root: &Path) -> std::io::Result<Self> {
        let prefix = format!("{PREFIX}{}-", std::process::id());
        // tempfile leaves a folder's mode to the umask (0755 by default).
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        Ok(Self { dir: tempfile::Builder::new().prefix(&prefix).permissions(private).tempdir_in(root)? })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Removes the hook folders of runners that are no longer running; returns them.
    pub(crate) fn remove_leftovers() -> Vec<PathBuf> {
        Self::remove_leftovers_in(&std::env::temp_dir())
    }

    fn remove_leftovers_in(root: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
        let mut removed = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix(PREFIX).and_then(|rest| rest.split('-').next()) else { continue };
            let Ok(pid) = pid.parse::<u32>() else { continue };
            let path = entry.path();
            if !crate::cancel::process_alive(pid) && std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_private_and_named_after_the_runner() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let dir = HookTempDir::create_in(root.path()).unwrap();
        let name = dir.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("runner-hook-{}-", std::process::id())), "{name}");
        assert_eq!(dir.path().metadata().unwrap().permissions().mode() & 0o777, 0o700);
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn only_the_folders_of_runners_that_are_gone_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let live = HookTempDir::create_in(root.path()).unwrap();
        // A pid above the kernel's limit (`pid_max` is at most 2^22) never runs.
        let dead = root.path().join("runner-hook-99999999-abc123");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("outputs.json"), "{\"password\":\"hunter2\"}").unwrap();
        let other = root.path().join("runner-hook-notapid");
        std::fs::create_dir(&other).unwrap();
        assert_eq!(HookTempDir::remove_leftovers_in(root.path()), vec![dead.clone()]);
        assert!(!dead.exists());
        assert!(live.path().exists() && other.exists());
    }
}
