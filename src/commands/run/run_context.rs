use std::collections::BTreeSet;

use crate::cli::{RunSettings, Settings};
use crate::commands::{LoadedProvider, StackCheck};
use crate::graph::NodeIndex;
use crate::pulumi::{Backend, ChildEnvironment};

/// What every step of a run reads before the executor starts: the settings, the provider, the
/// stack check, the environment and backend the children get, and the selected projects.
#[derive(Clone, Copy)]
pub(crate) struct RunContext<'a> {
    pub settings: &'a Settings,
    pub run: &'a RunSettings,
    pub loaded: &'a LoadedProvider,
    pub check: &'a StackCheck,
    pub environment: &'a ChildEnvironment,
    pub backend: &'a Backend,
    pub selected: &'a BTreeSet<NodeIndex>,
}
