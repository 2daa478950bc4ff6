use std::path::PathBuf;
use std::time::Duration;

use super::export_arguments::{ExportArguments, ExportTarget, PkoExportArguments};
use super::StackSettings;
use crate::config::RepositoryRoot;
use crate::error::Result;
use crate::export::GitSource;

#[derive(Debug, Clone)]
pub enum ExportSettings {
    Pko(Box<PkoExportSettings>),
    /// `runner export check FILE`: a stream checked against the operator's rules.
    Check(PathBuf),
}

/// `runner export pko`, with the git source already checked.
#[derive(Debug, Clone)]
pub struct PkoExportSettings {
    pub stack: StackSettings,
    pub namespace: String,
    pub git: GitSource,
    pub destroy_on_finalize: bool,
    pub secret_name: Option<String>,
    pub prerequisite_window: Duration,
    pub output: Option<PathBuf>,
}

impl ExportSettings {
    pub fn from_arguments(arguments: ExportArguments, root: &RepositoryRoot) -> Result<Self> {
        match arguments.target {
            ExportTarget::Pko(pko) => Ok(Self::Pko(Box::new(PkoExportSettings::from_arguments(*pko, root)?))),
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
