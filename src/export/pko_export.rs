use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_norway::{Mapping, Value};

use super::go_duration::format_go_duration;
use super::resource_name::{is_dns_label, ResourceName};
use super::stack_spec_fields::{
    config_secret, config_values, declared_secrets_of, environment_refs, secret_ref, unmapped, SecretEntry,
};
use super::{check_operator_rules, GitReference, GitSource};
use crate::config::{EnvironmentFile, StackConfig};
use crate::error::{Result, UserError};
use crate::provider::{Project, ProjectPath, Provider};
use crate::pulumi::PulumiManifest;

/// How the export is placed in the cluster.
#[derive(Debug, Clone)]
pub(crate) struct PkoExportOptions {
    pub namespace: String,
    pub git: GitSource,
    pub destroy_on_finalize: bool,
    /// The Kubernetes Secret every secret value is read from.
    pub secret_name: String,
    pub default_window: Duration,
}

/// One YAML stream for the operator: a Secret template, then one `Stack` per project.
#[derive(Debug, Clone)]
pub(crate) struct PkoExport {
    pub documents: Vec<Value>,
    /// Every project and the name of its Stack, in declaration order.
    pub names: Vec<(ProjectPath, ResourceName)>,
    /// Hooks, gates and settings with no operator equivalent: never dropped silently.
    pub not_exported: Vec<String>,
    /// Things the user must know before applying (a file backend, a laptop path...).
    pub warnings: Vec<String>,
    header: Vec<String>,
}

impl PkoExport {
    pub(crate) fn build(
        provider: &Provider,
        repository_root: &Path,
        stack: &str,
        stack_config: &StackConfig,
        environment: &EnvironmentFile,
        options: &PkoExportOptions,
    ) -> Result<Self> {
        if !is_dns_label(&options.namespace) {
            return Err(UserError::Usage(format!(
                "namespace `{}` is not a DNS label: use lowercase letters, digits and `-`, at most 63",
                options.namespace
            )));
        }
        if !is_dns_label(&options.secret_name) {
            return Err(UserError::Usage(format!(
                "secret name `{}` is not a DNS label: use lowercase letters, digits and `-`",
                options.secret_name
            )));
        }
        let organization = environment.get("PULUMI_ORGANIZATION").filter(|o| !o.is_empty()).unwrap_or("organization");
        let names: Vec<(ProjectPath, ResourceName)> = provider
            .projects
            .iter()
            .map(|project| (project.path.clone(), ResourceName::for_project(stack, project.path.as_str())))
            .collect();
        let name_of: BTreeMap<&ProjectPath, &str> =
            names.iter().map(|(path, name)| (path, name.name.as_str())).collect();
        let mut taken = BTreeMap::new();
        for (path, name) in &names {
            if let Some(other) = taken.insert(name.name.clone(), path.clone()) {
                return Err(UserError::Usage(format!(
                    "projects `{other}` and `{path}` would both be exported as Stack `{}`",
                    name.name
                )));
            }
        }

        let mut warnings = Vec::new();
        let mut secrets: BTreeMap<String, SecretEntry> = BTreeMap::new();
        let (env_refs, backend) =
            environment_refs(provider, stack_config, environment, options, &mut secrets, &mut warnings);
        let (config, shared_secret_refs) = config_values(provider, stack_config, options, &mut secrets);

        let mut not_exported = Vec::new();
        let mut documents = Vec::new();
        for project in &provider.projects {
            not_exported.extend(unmapped(project));
            let dir = provider.dir_of(project);
            let manifest = PulumiManifest::load(&dir).map_err(|err| UserError::InvalidFile {
                location: project.origin.clone(),
                message: format!("project `{}`: {}", project.path, crate::error::ErrorChain(&err)),
            })?;
            let repo_dir = dir.strip_prefix(repository_root).map_err(|_| {
                UserError::Usage(format!(
                    "project `{}` lives in `{}`, outside the repository `{}`: the operator can only clone the repository",
                    project.path,
                    dir.display(),
                    repository_root.display()
                ))
            })?;
            let mut spec = Mapping::new();
            spec.insert("stack".into(), format!("{organization}/{}/{stack}", manifest.name).into());
            spec.insert("projectRepo".into(), options.git.url.clone().into());
            match &options.git.reference {
                GitReference::Branch(branch) => spec.insert("branch".into(), branch.clone().into()),
                GitReference::Commit(commit) => spec.insert("commit".into(), commit.clone().into()),
            };
            spec.insert("repoDir".into(), repo_dir.to_string_lossy().replace('\\', "/").into());
            if let Some(backend) = &backend {
                spec.insert("backend".into(), backend.clone().into());
            }
            let prerequisites = prerequisites(project, &name_of, options.default_window);
            if !prerequisites.is_empty() {
                spec.insert("prerequisites".into(), Value::Sequence(prerequisites));
            }
            if !config.is_empty() {
                spec.insert("config".into(), Value::Mapping(config.clone()));
            }
            let mut secret_refs = shared_secret_refs.clone();
            for declared in declared_secrets_of(provider, project) {
                let entry = config_secret(&declared.key, declared.default_env.as_deref(), &mut secrets);
                secret_refs.insert(declared.key.clone().into(), secret_ref(&options.secret_name, &entry.key));
            }
            if !secret_refs.is_empty() {
                spec.insert("secretsRef".into(), Value::Mapping(secret_refs));
            }
            if !env_refs.is_empty() {
                spec.insert("envRefs".into(), Value::Mapping(env_refs.clone()));
            }
            if !project.targets.is_empty() {
                let targets = project.targets.iter().cloned().map(Value::from).collect();
                spec.insert("targets".into(), Value::Sequence(targets));
            }
            if project.target_dependents {
                spec.insert("targetDependents".into(), true.into());
            }
            if project.refresh {
                spec.insert("refresh".into(), true.into());
            }
            if options.destroy_on_finalize {
                spec.insert("destroyOnFinalize".into(), true.into());
            }
            let name = name_of[&project.path];
            documents.push(resource(
                "pulumi.com/v1",
                "Stack",
                name,
                &options.namespace,
                &project.path,
                Value::Mapping(spec),
                "spec",
            ));
        }
        if !secrets.is_empty() {
            let mut data = Mapping::new();
            for entry in secrets.values() {
                data.insert(entry.key.clone().into(), format!("${{{}}}", entry.placeholder).into());
            }
            let secret = resource(
                "v1",
                "Secret",
                &options.secret_name,
                &options.namespace,
                &ProjectPath::new(""),
                Value::Mapping(data),
                "stringData",
            );
            documents.insert(0, secret);
        }
        let problems = check_operator_rules(&documents);
        if !problems.is_empty() {
            return Err(UserError::OperatorRules { input: "the export".into(), problems });
        }
        let mut header = vec![
            format!("Pulumi Kubernetes Operator v2 resources for provider `{}`, stack `{stack}`, made by `runner export pko`.", provider.name),
            format!("Namespace `{}`; every Stack clones {} at {}.", options.namespace, options.git.url, match &options.git.reference {
                GitReference::Branch(branch) => format!("branch `{branch}`"),
                GitReference::Commit(commit) => format!("commit `{commit}`"),
            }),
        ];
        if !secrets.is_empty() {
            header.push(format!(
                "Secret `{}` holds placeholders (`${{NAME}}`): fill them (e.g. `envsubst`) before applying.",
                options.secret_name
            ));
        }
        header.push("Stacks (project -> name):".into());
        for (path, name) in &names {
            let note = match &name.shortened_from {
                Some(full) => format!(" (shortened from `{full}`: at most 42 characters)"),
                None => String::new(),
            };
            header.push(format!("  {path} -> {}{note}", name.name));
        }
        if !not_exported.is_empty() {
            header.push("Not exported (no operator equivalent):".into());
            header.extend(not_exported.iter().map(|line| format!("  {line}")));
        }
        if !warnings.is_empty() {
            header.push("Warnings:".into());
            header.extend(warnings.iter().map(|line| format!("  {line}")));
        }
        Ok(Self { documents, names, not_exported, warnings, header })
    }

    /// The YAML stream: a comment header, then the documents separated by `---`.
    pub(crate) fn render(&self) -> String {
        let mut text = String::new();
        for line in &self.header {
            text.push_str(&format!("# {line}\n"));
        }
        for document in &self.documents {
            text.push_str("---\n");
            text.push_str(&serde_norway::to_string(document).expect("plain YAML values serialise"));
        }
        text.push_str(&super::StreamEnd::line(self.documents.len()));
        text
    }
}

fn resource(
    api_version: &str,
    kind: &str,
    name: &str,
    namespace: &str,
    project: &ProjectPath,
    body: Value,
    body_key: &str,
) -> Value {
    let mut metadata = Mapping::new();
    metadata.insert("name".into(), name.into());
    metadata.insert("namespace".into(), namespace.into());
    let mut labels = Mapping::new();
    labels.insert("app.kubernetes.io/managed-by".into(), "runner".into());
    metadata.insert("labels".into(), Value::Mapping(labels));
    if !project.as_str().is_empty() {
        let mut annotations = Mapping::new();
        annotations.insert("runner.dev/project".into(), project.as_str().into());
        metadata.insert("annotations".into(), Value::Mapping(annotations));
    }
    let mut document = Mapping::new();
    document.insert("apiVersion".into(), api_version.into());
    document.insert("kind".into(), kind.into());
    document.insert("metadata".into(), Value::Mapping(metadata));
    if kind == "Secret" {
        document.insert("type".into(), "Opaque".into());
    }
    document.insert(body_key.into(), body);
    Value::Mapping(document)
}

/// One entry per dependency and per declared prerequisite, with the project's window for it.
fn prerequisites(project: &Project, name_of: &BTreeMap<&ProjectPath, &str>, default: Duration) -> Vec<Value> {
    let mut windows: Vec<(&ProjectPath, Duration)> = Vec::new();
    for dependency in &project.depends_on {
        let window = project
            .prerequisites
            .iter()
            .find(|prerequisite| &prerequisite.project == dependency)
            .map_or(default, |prerequisite| prerequisite.succeeded_within);
        windows.push((dependency, window));
    }
    for prerequisite in &project.prerequisites {
        if !windows.iter().any(|(path, _)| *path == &prerequisite.project) {
            windows.push((&prerequisite.project, prerequisite.succeeded_within));
        }
    }
    windows
        .into_iter()
        .filter_map(|(path, window)| {
            let name = name_of.get(path)?;
            let mut requirement = Mapping::new();
            requirement.insert("succeededWithinDuration".into(), format_go_duration(window).into());
            let mut entry = Mapping::new();
            entry.insert("name".into(), (*name).into());
            entry.insert("requirement".into(), Value::Mapping(requirement));
            Some(Value::Mapping(entry))
        })
        .collect()
}

#[cfg(test)]
#[path = "pko_export_tests.rs"]
mod tests;
