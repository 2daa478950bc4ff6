mod project_graph;

pub use project_graph::{NodeIndex, ProjectGraph};
