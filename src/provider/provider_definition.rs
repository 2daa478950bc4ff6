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
}

impl Provider {
    pub fn project(&self, path: &ProjectPath) -> Option<&Project> {
        self.projects.iter().find(|project| &project.path == path)
    }

    /// The program's folder: `dir` when the project names one, else its path.
    pub fn project_dir(&self, path: &ProjectPath) -> PathBuf {
        let folder = self.project(path).and_then(|project| project.dir.as_deref()).unwrap_or(path.as_str());
        self.projects_root.join(folder)
    }
}
