mod catalog;
mod config_key;
mod hook_spec;
mod phase;
mod project;
mod project_path;
mod provider_definition;
mod provider_file;
mod retry_policy;

pub use catalog::{nearest_name, ProviderCatalog};
pub use config_key::{ConfigKey, ValueKind};
pub use hook_spec::HookSpec;
pub use phase::Phase;
pub use project::{Project, SecretSpec};
pub use project_path::ProjectPath;
pub use provider_definition::Provider;
pub use retry_policy::RetryPolicy;
