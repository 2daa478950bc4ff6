//! Export of a provider's graph to other engines: one `Stack` resource of the Pulumi Kubernetes
//! Operator per project, ordered by `spec.prerequisites`; a CI pipeline (GitHub Actions, GitLab
//! CI) with one job per project, whose `needs` are the graph's edges.

mod ci_pipeline;
mod git_source;
mod github_actions_workflow;
mod gitlab_ci_pipeline;
mod go_duration;
mod operator_rules;
mod pko_export;
mod resource_name;
mod stack_spec_fields;
mod stream_end;

pub use ci_pipeline::{job_id, CiJob, CiOptions, CiPipeline, CiVariable, CI_REPORT_DIR};
pub use git_source::{GitReference, GitSource};
pub use github_actions_workflow::GitHubActionsWorkflow;
pub use gitlab_ci_pipeline::GitLabCiPipeline;
pub use go_duration::{format_go_duration, is_go_duration};
pub use operator_rules::check_operator_rules;
pub use pko_export::{PkoExport, PkoExportOptions, DEFAULT_PREREQUISITE_WINDOW};
pub use resource_name::{is_dns_label, ResourceName, MAX_STACK_NAME_LEN};
pub use stream_end::StreamEnd;
