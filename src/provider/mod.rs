#[cfg(test)]
mod amendment_tests;
mod builtin_providers;
mod catalog;
mod config_key;
mod hook_spec;
mod kubernetes_object;
mod name_suggestion;
mod phase;
mod project;
mod project_conversion;
mod project_path;
mod provider_definition;
mod provider_file;
mod readiness_gate;
mod retry_policy;

pub use catalog::{ProviderCatalog, ProviderOrigin};
pub use config_key::{ConfigKey, ValueKind};
pub use hook_spec::HookSpec;
pub use kubernetes_object::{KubernetesKind, KubernetesObject};
pub use name_suggestion::nearest_name;
pub use phase::Phase;
pub use project::{FailureHint, Prerequisite, Project, SecretSpec};
pub use project_path::ProjectPath;
pub use provider_definition::Provider;
pub use readiness_gate::{GateCheck, ReadinessGate};
pub use retry_policy::{RetryPatterns, RetryPolicy};
