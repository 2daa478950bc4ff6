use std::collections::{BTreeMap, BTreeSet};

use crate::config::EnvironmentFile;
use crate::error::{Result, UserError};
use crate::graph::ProjectGraph;
use crate::plan::{ExecutionPlan, Operation};
use crate::provider::{HookSpec, Phase, ProjectPath, Provider};
use crate::secrets::SecretRule;

/// Where each job keeps its JSON report, relative to the checkout: the artifact it uploads.
pub(super) const CI_REPORT_DIR: &str = ".runner-ci/reports";

/// How a pipeline is exported, beyond the provider and the stack.
#[derive(Debug, Clone)]
pub(crate) struct CiOptions {
    pub operation: Operation,
    /// Install a pinned `pulumi` and the runner in every job; off for machines that have both.
    pub setup: bool,
    /// Run only what a git change affects: `Some("")` for the runner's default base, else a ref.
    pub affected: Option<String>,
}

/// One job: one project run through the normal lifecycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CiJob {
    pub id: String,
    pub project: ProjectPath,
    /// Ids of the jobs that must end first: the plan's blockers in the operation's direction.
    pub needs: Vec<String>,
    /// The cluster's kubeconfig is re-derived from its stack's outputs before the run.
    pub needs_kubeconfig: bool,
}

/// A name the CI system supplies under the environment file's own name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CiVariable {
    pub name: String,
    /// Secret by `SecretRule`: a CI secret, never a value in the pipeline file.
    pub secret: bool,
}

/// The graph as CI jobs, independent of the CI system that runs them.
#[derive(Debug, Clone)]
pub(crate) struct CiPipeline {
    pub provider: String,
    pub stack: String,
    pub options: CiOptions,
    pub jobs: Vec<CiJob>,
    pub variables: Vec<CiVariable>,
}

impl CiPipeline {
    pub(crate) fn build(
        provider: &Provider,
        graph: &ProjectGraph,
        stack: &str,
        environment: &EnvironmentFile,
        rule: &SecretRule,
        options: CiOptions,
    ) -> Result<Self> {
        refuse_local_backend(environment)?;
        refuse_unsafe_word("provider", &provider.name)?;
        refuse_unsafe_word("stack", stack)?;
        for project in &provider.projects {
            refuse_unsafe_word("project", project.path.as_str())?;
        }
        if let Some(reference) = options.affected.as_deref().filter(|reference| !reference.is_empty()) {
            refuse_unsafe_word("`--affected` reference", reference)?;
        }
        let plan = ExecutionPlan::full(graph, options.operation);
        let id_of: Vec<String> = graph.projects().iter().map(|project| job_id(&project.path)).collect();
        let mut seen = BTreeMap::new();
        for (node, id) in id_of.iter().enumerate() {
            if let Some(other) = seen.insert(id.as_str(), node) {
                return Err(UserError::Usage(format!(
                    "projects `{}` and `{}` would both be job `{id}`",
                    graph.project(other).path,
                    graph.project(node).path
                )));
            }
            if RESERVED_JOBS.contains(&id.as_str()) {
                return Err(UserError::Usage(format!(
                    "project `{}` would be job `{id}`, the name of the pipeline's own job",
                    graph.project(node).path
                )));
            }
        }
        let cluster_kubeconfig = provider.projects.iter().any(|project| {
            project.provides_cluster
                && project.on_success.iter().any(|hook| matches!(hook, HookSpec::Kubeconfig { .. }))
        });
        let mut jobs = Vec::new();
        for &node in &plan.order {
            let step = plan.step(node).expect("every planned node has a step");
            let mut needs: BTreeSet<usize> = step.blockers().collect();
            if let Some(barrier) = step.after_phase {
                needs.extend(plan.order.iter().copied().filter(|&other| graph.project(other).phase == barrier.phase));
            }
            needs.remove(&node);
            let project = graph.project(node);
            let mut needs: Vec<String> = needs.into_iter().map(|other| id_of[other].clone()).collect();
            needs.sort();
            jobs.push(CiJob {
                id: id_of[node].clone(),
                project: project.path.clone(),
                needs,
                needs_kubeconfig: cluster_kubeconfig && project.phase == Phase::Kubernetes && project.needs_cluster,
            });
        }
        Ok(Self {
            provider: provider.name.clone(),
            stack: stack.to_string(),
            options,
            jobs,
            variables: variables(provider, environment, rule)?,
        })
    }

    /// The job's command: one project through the whole lifecycle, never asking anything.
    pub(crate) fn run_command(&self, job: &CiJob) -> String {
        let yes = if self.options.operation == Operation::Destroy { " --yes" } else { "" };
        format!(
            "runner {} --provider {} --stack {} --only {} --non-interactive{yes} --verbose --report json={}",
            self.options.operation.as_str(),
            self.provider,
            self.stack,
            job.project,
            self.report_file(job)
        )
    }

    /// The exit code a job lets pass: drift (3) in a drift pipeline, so that a drifted project
    /// does not keep its dependents from being checked; the summary job fails on it instead.
    pub(crate) fn passing_exit_code(&self) -> Option<u8> {
        (self.options.operation == Operation::Drift).then_some(crate::exit_status::ExitStatus::ChangesFound.code())
    }

    pub(crate) fn report_file(&self, job: &CiJob) -> String {
        format!("{CI_REPORT_DIR}/{}.json", job.id)
    }

    pub(crate) fn kubeconfig_command(&self) -> String {
        format!("runner kubeconfig --provider {} --stack {}", self.provider, self.stack)
    }

    /// Prints the affected projects as one JSON array of paths.
    pub(crate) fn affected_command(&self) -> Option<String> {
        let reference = self.options.affected.as_ref()?;
        let reference = if reference.is_empty() { String::new() } else { format!(" {reference}") };
        Some(format!(
            "runner show --provider {} --operation {} --format json --affected{reference} | jq -c '[.order[]]'",
            self.provider,
            self.options.operation.as_str()
        ))
    }

    pub(crate) fn merge_command(&self, format: &str) -> String {
        let expected: String = self.jobs.iter().map(|job| format!(" --expect {}", job.project)).collect();
        format!("runner report merge --format {format}{expected} {CI_REPORT_DIR}")
    }

    /// One pipeline per stack at a time: a second one waits instead of racing for Pulumi's locks.
    pub(crate) fn concurrency_group(&self) -> String {
        format!("runner-{}-{}", self.provider, self.stack)
    }

    pub(crate) fn title(&self, tool: &str) -> Vec<String> {
        let mut lines = vec![
            format!(
                "`runner {}` of provider `{}`, stack `{}`, one job per project; made by `runner export {tool}`.",
                self.options.operation.as_str(),
                self.provider,
                self.stack
            ),
            "Regenerate it after a provider file changes; `--check FILE` fails when it is stale.".to_string(),
        ];
        let secrets: Vec<&str> = self.variables.iter().filter(|v| v.secret).map(|v| v.name.as_str()).collect();
        let plain: Vec<&str> = self.variables.iter().filter(|v| !v.secret).map(|v| v.name.as_str()).collect();
        if !secrets.is_empty() {
            lines.push(format!("Secrets to define in the CI system: {}.", secrets.join(", ")));
        }
        if !plain.is_empty() {
            lines.push(format!("Variables to define in the CI system: {}.", plain.join(", ")));
        }
        lines
    }
}

/// Job names of the pipeline itself; a project may not take one.
pub(super) const RESERVED_JOBS: &[&str] = &["affected", "summary"];

/// A project path as a job id both CI systems accept: `[A-Za-z0-9_-]`, starting with a letter.
pub(super) fn job_id(path: &ProjectPath) -> String {
    let id: String = path
        .as_str()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' })
        .collect();
    if id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        id
    } else {
        format!("p-{id}")
    }
}

/// Names go into shell commands and into GitHub expressions (`'path'`) unquoted: only words
/// that mean the same in both are written, anything else is refused before a file is.
fn refuse_unsafe_word(what: &str, word: &str) -> Result<()> {
    let safe = !word.is_empty()
        && !word.starts_with('-')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if safe {
        return Ok(());
    }
    Err(UserError::Usage(format!(
        "{what} `{word}` cannot be written into a pipeline: use letters, digits, `.`, `_`, `-` and `/` only"
    )))
}

/// Jobs run on other machines: state kept in a folder of this one would be lost between them.
fn refuse_local_backend(environment: &EnvironmentFile) -> Result<()> {
    match environment.get("PULUMI_BACKEND_URL").filter(|url| !url.is_empty()) {
        Some(url) if !url.starts_with("file://") => Ok(()),
        Some(url) => Err(UserError::Usage(format!(
            "`PULUMI_BACKEND_URL` is `{url}`, a folder on this machine that the pipeline's jobs cannot share: set it in `{}` to a shared backend (`s3://...`, Pulumi Cloud)",
            crate::error::shown_path(environment.path())
        ))),
        None => Err(UserError::Usage(format!(
            "`PULUMI_BACKEND_URL` is not set in `{}`: the runner's default backend is a folder on this machine that the pipeline's jobs cannot share; set it to a shared backend (`s3://...`, Pulumi Cloud)",
            crate::error::shown_path(environment.path())
        ))),
    }
}

/// The environment file's names, and the variables feeding declared secrets: what the jobs
/// need from the CI system. Values never leave this machine.
fn variables(provider: &Provider, environment: &EnvironmentFile, rule: &SecretRule) -> Result<Vec<CiVariable>> {
    let mut variables: BTreeMap<String, bool> = BTreeMap::new();
    for entry in environment.entries() {
        variables.insert(entry.key.clone(), rule.entry_is_secret(&entry.key));
    }
    let declared = provider
        .config
        .iter()
        .filter(|key| key.secret)
        .filter_map(|key| key.default_env.clone())
        .chain(provider.projects.iter().flat_map(|p| p.secrets.iter().filter_map(|s| s.default_env.clone())));
    for name in declared {
        variables.insert(name, true);
    }
    // The stack is named on every command line; a CI variable could only contradict it.
    variables.remove("PULUMI_STACK");
    // A name both CI systems accept for a secret and an expression can read (`secrets.NAME`).
    for name in variables.keys() {
        let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier || name.to_ascii_uppercase().starts_with("GITHUB_") {
            return Err(UserError::Usage(format!(
                "`{name}` in `{}` cannot be a CI variable: use letters, digits and `_`, not starting with a digit or `GITHUB_`",
                environment.path().display()
            )));
        }
    }
    Ok(variables.into_iter().map(|(name, secret)| CiVariable { name, secret }).collect())
}

#[cfg(test)]
#[path = "ci_pipeline_tests.rs"]
mod tests;
