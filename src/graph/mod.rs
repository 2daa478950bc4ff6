mod project_graph;
#[cfg(test)]
mod test_provider;

pub use project_graph::{NodeIndex, ProjectGraph};
#[cfg(test)]
pub(crate) use test_provider::{mara_aws_provider, test_provider};
