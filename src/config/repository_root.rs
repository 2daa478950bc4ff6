use std::path::{Path, PathBuf};

use crate::error::{Result, UserError};

/// The folder holding `providers/`, `config/` and, by default, `projects/`; or an NGINX MARA
/// checkout, whose providers are built into the binary and whose projects live in `pulumi/python`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryRoot {
    path: PathBuf,
    layout: RootLayout,
}

/// What kind of folder the root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootLayout {
    /// A runner repository: `providers/`, `projects/`, `config/pulumi/`.
    Runner,
    /// An unchanged MARA checkout: `pulumi/python/automation/` and `config/pulumi/`; an optional
    /// `providers/` folder in it overrides or adds to the built-in definitions.
    MaraCheckout,
}

/// MARA's projects root inside a checkout.
const MARA_PROJECTS: &str = "pulumi/python";

impl RepositoryRoot {
    /// Walks from `start` upward, like git does for `.git`, to the first folder holding `providers/`
    /// or MARA's layout.
    pub fn discover(start: &Path) -> Result<Self> {
        let start = absolute(start);
        for candidate in start.ancestors() {
            if let Some(layout) = RootLayout::of(candidate) {
                return Ok(Self { path: candidate.to_path_buf(), layout });
            }
        }
        Err(UserError::RootNotFound { start })
    }

    /// Uses `path` as given by `--root`; it must hold `providers/` or be a MARA checkout.
    pub fn at(path: &Path) -> Result<Self> {
        let path = absolute(path);
        match RootLayout::of(&path) {
            Some(layout) => Ok(Self { path, layout }),
            None => Err(UserError::RootInvalid { path }),
        }
    }

    /// A root for commands that never read it (shell completions).
    pub fn unchecked(path: &Path) -> Self {
        Self { path: absolute(path), layout: RootLayout::Runner }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `path` as a user at the root would type it: relative when it is inside the repository.
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.path).unwrap_or(path)
    }

    pub fn layout(&self) -> RootLayout {
        self.layout
    }

    pub fn is_mara_checkout(&self) -> bool {
        self.layout == RootLayout::MaraCheckout
    }

    /// Where a provider's projects live unless it says otherwise: `projects/`, or MARA's `pulumi/python`.
    pub fn default_projects_root(&self) -> PathBuf {
        match self.layout {
            RootLayout::Runner => self.path.join("projects"),
            RootLayout::MaraCheckout => self.path.join(MARA_PROJECTS),
        }
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

    /// The stacks that have a shared stack file (`config/pulumi/Pulumi.<stack>.yaml`), sorted.
    pub fn stack_names(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.config_dir()) else { return Vec::new() };
        let mut stacks: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.path().is_file())
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let stack = name.strip_prefix("Pulumi.")?.strip_suffix(".yaml")?.to_string();
                (!stack.is_empty()).then_some(stack)
            })
            .collect();
        stacks.sort();
        stacks
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

impl RootLayout {
    /// MARA's layout wins over `providers/`: a checkout may hold a `providers/` folder of its own.
    fn of(dir: &Path) -> Option<Self> {
        let mara = dir.join(MARA_PROJECTS).join("automation").is_dir() && dir.join("config/pulumi").is_dir();
        if mara {
            Some(Self::MaraCheckout)
        } else if dir.join("providers").is_dir() {
            Some(Self::Runner)
        } else {
            None
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
    fn a_mara_checkout_is_a_root_without_providers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pulumi/python/automation")).unwrap();
        std::fs::create_dir_all(dir.path().join("pulumi/python/kubernetes/secrets")).unwrap();
        std::fs::create_dir_all(dir.path().join("config/pulumi")).unwrap();
        let root = RepositoryRoot::discover(&dir.path().join("pulumi/python/kubernetes/secrets")).unwrap();
        assert_eq!(root.path(), dir.path());
        assert!(root.is_mara_checkout());
        assert_eq!(root.default_projects_root(), dir.path().join("pulumi/python"));
        assert_eq!(root.stack_config_file("dev"), dir.path().join("config/pulumi/Pulumi.dev.yaml"));
        // A `providers/` folder inside it does not make it a runner repository.
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        assert!(RepositoryRoot::at(dir.path()).unwrap().is_mara_checkout());
    }

    #[test]
    fn half_a_mara_layout_is_not_a_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pulumi/python/automation")).unwrap();
        assert!(RepositoryRoot::at(dir.path()).is_err());
    }

    #[test]
    fn normalize_drops_dot_segments() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }
}
