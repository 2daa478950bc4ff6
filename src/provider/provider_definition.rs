use std::path::PathBuf;

use serde::Serialize;

use super::{ConfigKey, Project, ProjectPath};

/// A provider with `extends` resolved: everything needed to build the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provider {
    pub name: String,
    pub description: String,
    /// Expected value of `kubernetes:infra_type` in the stack file.
    pub infra_type: Option<String>,
    /// The provider file, for error messages.
    #[serde(skip)]
    pub file: PathBuf,
    /// Absolute folder the project paths are relative to.
    #[serde(skip)]
    pub projects_root: PathBuf,
    pub config: Vec<ConfigKey>,
    /// The project whose own stack keeps the secrets (MARA's `kubernetes/secrets`); without one,
    /// secrets go to the shared stack file.
    pub secrets_project: Option<ProjectPath>,
    /// In declaration order: inherited projects first.
    pub projects: Vec<Project>,
    /// Every kubernetes project waits for the whole infrastructure phase (MARA's own order),
    /// instead of for its dependencies and the projects marked `provides_cluster`.
    pub strict_phase_barrier: bool,
    /// Concurrency limits by pool name (`[pools] aws = 2`); `--pool aws=1` overrides them.
    pub pools: std::collections::BTreeMap<String, usize>,
    /// Environment-file entries declared not secret, inherited through `extends`.
    pub plain_environment: Vec<String>,
}

impl Provider {
    pub fn project(&self, path: &ProjectPath) -> Option<&Project> {
        self.projects.iter().find(|project| &project.path == path)
    }

    /// The program's folder: `dir` when the project names one, else its path.
    pub fn dir_of(&self, project: &Project) -> PathBuf {
        self.projects_root.join(project.dir.as_deref().unwrap_or(project.path.as_str()))
    }

    /// As `dir_of`, from a path alone (a lookup: prefer `dir_of` in loops).
    pub fn project_dir(&self, path: &ProjectPath) -> PathBuf {
        match self.project(path) {
            Some(project) => self.dir_of(project),
            None => self.projects_root.join(path.as_str()),
        }
    }

    /// MARA's secrets project reads its own stack file, never the shared one: its secrets are
    /// encrypted for its own stack.
    pub fn keeps_own_stack_file(&self, project: &Project) -> bool {
        self.secrets_project.as_ref() == Some(&project.path)
    }
}
