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

pub(crate) use ci_pipeline::{CiOptions, CiPipeline};
pub(crate) use git_source::{GitReference, GitSource};
pub(crate) use github_actions_workflow::GitHubActionsWorkflow;
pub(crate) use gitlab_ci_pipeline::GitLabCiPipeline;
pub(crate) use operator_rules::check_operator_rules;
pub(crate) use pko_export::{PkoExport, PkoExportOptions};
pub(crate) use stream_end::StreamEnd;
