use std::path::PathBuf;
use std::time::Duration;

use super::export_arguments::{CiExportArguments, ExportArguments, ExportTarget, PkoExportArguments};
use super::StackSettings;
use crate::config::RepositoryRoot;
use crate::error::Result;
use crate::export::GitSource;
use crate::plan::Operation;

#[derive(Debug, Clone)]
pub(crate) enum ExportSettings {
    Pko(Box<PkoExportSettings>),
    /// `runner export github-actions` and `runner export gitlab-ci`.
    Ci(Box<CiExportSettings>),
    /// `runner export check FILE`: a stream checked against the operator's rules.
    Check(PathBuf),
}

/// `runner export pko`, with the git source already checked.
#[derive(Debug, Clone)]
pub(crate) struct PkoExportSettings {
    pub stack: StackSettings,
    pub namespace: String,
    pub git: GitSource,
    pub destroy_on_finalize: bool,
    pub secret_name: Option<String>,
    pub prerequisite_window: Duration,
    pub output: Option<PathBuf>,
}

impl ExportSettings {
    pub(crate) fn from_arguments(arguments: ExportArguments, root: &RepositoryRoot) -> Result<Self> {
        match arguments.target {
            ExportTarget::Pko(pko) => Ok(Self::Pko(Box::new(PkoExportSettings::from_arguments(*pko, root)?))),
            ExportTarget::GithubActions(ci) => {
                Ok(Self::Ci(Box::new(CiExportSettings::from_arguments(ci, CiSystem::GitHubActions, root)?)))
            }
            ExportTarget::GitlabCi(ci) => {
                Ok(Self::Ci(Box::new(CiExportSettings::from_arguments(ci, CiSystem::GitLabCi, root)?)))
            }
            ExportTarget::Check(check) => Ok(Self::Check(check.file)),
        }
    }
}

impl PkoExportSettings {
    fn from_arguments(arguments: PkoExportArguments, root: &RepositoryRoot) -> Result<Self> {
        let git = GitSource::new(&arguments.git_url, arguments.git_branch, arguments.git_commit)?;
        Ok(Self {
            stack: StackSettings::from_arguments(arguments.stack, root)?,
            namespace: arguments.namespace,
            git,
            destroy_on_finalize: arguments.destroy_on_finalize,
            secret_name: arguments.secret_name,
            prerequisite_window: arguments.prerequisite_window,
            output: arguments.output,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CiSystem {
    GitHubActions,
    GitLabCi,
}

/// `runner export github-actions|gitlab-ci`.
#[derive(Debug, Clone)]
pub(crate) struct CiExportSettings {
    pub system: CiSystem,
    pub stack: StackSettings,
    pub operation: Operation,
    pub affected: Option<String>,
    pub setup: bool,
    pub output: Option<PathBuf>,
    pub check: Option<PathBuf>,
}

impl CiExportSettings {
    fn from_arguments(arguments: CiExportArguments, system: CiSystem, root: &RepositoryRoot) -> Result<Self> {
        Ok(Self {
            system,
            stack: StackSettings::from_arguments(arguments.stack, root)?,
            operation: arguments.operation,
            affected: arguments.affected,
            setup: !arguments.no_setup,
            output: arguments.output,
            check: arguments.check,
        })
    }
}
