use std::path::{Path, PathBuf};

use crate::error::{Result, UserError};

/// The folder holding `providers/`, `config/` and, by default, `projects/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryRoot {
    path: PathBuf,
}

impl RepositoryRoot {
    /// Walks from `start` upward, like git does for `.git`, to the first folder holding `providers/`.
    pub fn discover(start: &Path) -> Result<Self> {
        let start = absolute(start);
        for candidate in start.ancestors() {
            if candidate.join("providers").is_dir() {
                return Ok(Self { path: candidate.to_path_buf() });
            }
        }
        Err(UserError::RootNotFound { start })
    }

    /// Uses `path` as given by `--root`; it must hold `providers/`.
    pub fn at(path: &Path) -> Result<Self> {
        let path = absolute(path);
        if path.join("providers").is_dir() {
            Ok(Self { path })
        } else {
            Err(UserError::RootInvalid { path })
        }
    }

    /// A root for commands that never read it (shell completions).
    pub fn unchecked(path: &Path) -> Self {
        Self { path: absolute(path) }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn providers_dir(&self) -> PathBuf {
        self.path.join("providers")
    }

    pub fn config_dir(&self) -> PathBuf {
        self.path.join("config").join("pulumi")
    }

    pub fn environment_file(&self) -> PathBuf {
        self.config_dir().join("environment")
    }

    pub fn stack_config_file(&self, stack: &str) -> PathBuf {
        self.config_dir().join(format!("Pulumi.{stack}.yaml"))
    }

    /// Where the runner keeps its own state: logs, history, locks and the default backend.
    pub fn state_dir(&self) -> PathBuf {
        self.path.join(".runner")
    }

    /// Resolves a path from a configuration file: relative paths are taken from the root.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.path.join(path)
        }
    }
}

fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    normalize(&joined)
}

/// Removes `.` and `..` without touching the file system, so symlinks are not resolved.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovers_root_from_a_nested_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        let nested = dir.path().join("projects/a/b");
        std::fs::create_dir_all(&nested).unwrap();
        let root = RepositoryRoot::discover(&nested).unwrap();
        assert_eq!(root.path(), dir.path());
    }

    #[test]
    fn reports_the_starting_folder_when_no_root_exists() {
        let dir = tempfile::tempdir().unwrap();
        let err = RepositoryRoot::discover(dir.path()).unwrap_err();
        assert!(matches!(err, UserError::RootNotFound { .. }));
    }

    #[test]
    fn explicit_root_must_hold_providers() {
        let dir = tempfile::tempdir().unwrap();
        assert!(RepositoryRoot::at(dir.path()).is_err());
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        assert!(RepositoryRoot::at(dir.path()).is_ok());
    }

    #[test]
    fn normalize_drops_dot_segments() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }
}
