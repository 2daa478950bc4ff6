use crate::cli::{ProviderSettings, Settings};
use crate::error::Result;
use crate::graph::ProjectGraph;
use crate::provider::{Provider, ProviderCatalog};

/// A provider read from disk, its project folders checked and its graph built.
#[derive(Debug, Clone)]
pub(crate) struct LoadedProvider {
    pub provider: Provider,
    pub graph: ProjectGraph,
}

impl LoadedProvider {
    pub(crate) fn load(settings: &Settings, provider: &ProviderSettings) -> Result<Self> {
        let catalog = ProviderCatalog::new(settings.root.clone());
        let provider = catalog.load(&provider.name, provider.projects_root.as_deref())?;
        let graph = ProjectGraph::build(&provider)?;
        ProviderCatalog::check_project_folders(&provider)?;
        Ok(Self { provider, graph })
    }
}
