//! Export of a provider's graph to other engines: one `Stack` resource of the Pulumi Kubernetes
//! Operator per project, ordered by `spec.prerequisites`.

mod git_source;
mod go_duration;
mod operator_rules;
mod pko_export;
mod resource_name;
mod stack_spec_fields;
mod stream_end;

pub use git_source::{GitReference, GitSource};
pub use operator_rules::check_operator_rules;
pub use pko_export::{PkoExport, PkoExportOptions};
pub use stream_end::StreamEnd;
