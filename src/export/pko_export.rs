use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_yaml::{Mapping, Value};

use super::go_duration::format_go_duration;
use super::resource_name::{is_dns_label, ResourceName};
use super::{check_operator_rules, GitReference, GitSource};
use crate::config::{EnvironmentFile, StackConfig};
use crate::error::{Result, UserError};
use crate::provider::{Project, ProjectPath, Provider};
use crate::pulumi::{is_secret_name, PulumiManifest};

/// The window a dependency must have succeeded within when the project sets none for it
/// (`prerequisites = [{ project, succeeded_within }]`): a day, so the operator re-runs a
/// dependency at most daily on its dependents' account, and never lets one run on a stale one.
pub const DEFAULT_PREREQUISITE_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// How the export is placed in the cluster.
#[derive(Debug, Clone)]
pub struct PkoExportOptions {
    pub namespace: String,
    pub git: GitSource,
    pub destroy_on_finalize: bool,
    /// The Kubernetes Secret every secret value is read from.
    pub secret_name: String,
    pub default_window: Duration,
}

/// One YAML stream for the operator: a Secret template, then one `Stack` per project.
#[derive(Debug, Clone)]
pub struct PkoExport {
    pub documents: Vec<Value>,
    /// Every project and the name of its Stack, in declaration order.
    pub names: Vec<(ProjectPath, ResourceName)>,
    /// Hooks, gates and settings with no operator equivalent: never dropped silently.
    pub not_exported: Vec<String>,
    /// Things the user must know before applying (a file backend, a laptop path...).
    pub warnings: Vec<String>,
    header: Vec<String>,
}

/// A secret value: where it goes in the Secret, and the placeholder standing for it.
#[derive(Debug, Clone)]
struct SecretEntry {
    key: String,
    placeholder: String,
}

impl PkoExport {
    pub fn build(
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
            let manifest = PulumiManifest::load(&dir).map_err(|message| UserError::InvalidFile {
                location: project.origin.clone(),
                message: format!("project `{}`: {message}", project.path),
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
    pub fn render(&self) -> String {
        let mut text = String::new();
        for line in &self.header {
            text.push_str(&format!("# {line}\n"));
        }
        for document in &self.documents {
            text.push_str("---\n");
            text.push_str(&serde_yaml::to_string(document).expect("plain YAML values serialise"));
        }
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

fn secret_ref(secret_name: &str, key: &str) -> Value {
    let mut secret = Mapping::new();
    secret.insert("name".into(), secret_name.into());
    secret.insert("key".into(), key.into());
    let mut reference = Mapping::new();
    reference.insert("type".into(), "Secret".into());
    reference.insert("secret".into(), Value::Mapping(secret));
    Value::Mapping(reference)
}

fn literal_ref(value: &str) -> Value {
    let mut literal = Mapping::new();
    literal.insert("value".into(), value.into());
    let mut reference = Mapping::new();
    reference.insert("type".into(), "Literal".into());
    reference.insert("literal".into(), Value::Mapping(literal));
    Value::Mapping(reference)
}

/// `envRefs` from the environment file, and the backend URL when the cluster can reach it.
fn environment_refs(
    provider: &Provider,
    stack_config: &StackConfig,
    environment: &EnvironmentFile,
    options: &PkoExportOptions,
    secrets: &mut BTreeMap<String, SecretEntry>,
    warnings: &mut Vec<String>,
) -> (Mapping, Option<String>) {
    let declared_envs: Vec<&str> = provider
        .projects
        .iter()
        .flat_map(|project| project.secrets.iter())
        .filter_map(|secret| secret.default_env.as_deref())
        .chain(provider.config.iter().filter(|key| key.secret).filter_map(|key| key.default_env.as_deref()))
        .collect();
    let mut refs = Mapping::new();
    let mut backend = None;
    let mut add_secret = |key: &str, refs: &mut Mapping| {
        secrets.insert(key.to_string(), SecretEntry { key: key.to_string(), placeholder: key.to_string() });
        refs.insert(key.into(), secret_ref(&options.secret_name, key));
    };
    for entry in environment.entries() {
        let key = entry.key.as_str();
        match key {
            "PULUMI_STACK" => continue,
            "PULUMI_BACKEND_URL" => {
                if entry.value.starts_with("file://") || entry.value.is_empty() {
                    warnings.push(format!(
                        "`PULUMI_BACKEND_URL={}` is a folder on this machine: give the Stacks a backend the cluster reaches (s3://, Pulumi Cloud)",
                        entry.value
                    ));
                } else {
                    backend = Some(entry.value.clone());
                }
                continue;
            }
            "KUBECONFIG" => {
                warnings.push(format!(
                    "`KUBECONFIG={}` (line {}) is a path on this machine: not exported; the operator's workspace uses its service account",
                    entry.value, entry.line
                ));
                continue;
            }
            "PULUMI_CONFIG_PASSPHRASE_FILE" => {
                add_secret("PULUMI_CONFIG_PASSPHRASE", &mut refs);
                continue;
            }
            _ => {}
        }
        if key.starts_with("PULUMI_OPTION_") {
            continue;
        }
        if is_secret_name(key) || declared_envs.contains(&key) {
            add_secret(key, &mut refs);
        } else {
            refs.insert(key.into(), literal_ref(&entry.value));
        }
    }
    let encrypted = stack_config.text().is_some_and(|text| text.contains("encryptionsalt:"));
    if encrypted && !refs.contains_key("PULUMI_CONFIG_PASSPHRASE") && environment.get("PULUMI_ACCESS_TOKEN").is_none() {
        add_secret("PULUMI_CONFIG_PASSPHRASE", &mut refs);
    }
    (refs, backend)
}

/// Plain values of the shared stack file go inline; `secure:` values and secret keys become
/// `secretsRef` entries read from the Secret.
fn config_values(
    provider: &Provider,
    stack_config: &StackConfig,
    options: &PkoExportOptions,
    secrets: &mut BTreeMap<String, SecretEntry>,
) -> (Mapping, Mapping) {
    let mut config = Mapping::new();
    let mut secret_refs = Mapping::new();
    for key in stack_config.keys() {
        let declared = provider.config.iter().find(|config_key| config_key.key == key);
        let secret = stack_config.is_secure(key) || declared.is_some_and(|config_key| config_key.secret);
        if secret {
            let default_env = declared.and_then(|config_key| config_key.default_env.as_deref()).or_else(|| {
                provider
                    .projects
                    .iter()
                    .flat_map(|project| project.secrets.iter())
                    .find(|spec| spec.key == key)
                    .and_then(|spec| spec.default_env.as_deref())
            });
            let entry = config_secret(key, default_env, secrets);
            secret_refs.insert(key.into(), secret_ref(&options.secret_name, &entry.key));
        } else if let Some(value) = stack_config.get(key) {
            config.insert(key.into(), value.clone());
        }
    }
    (config, secret_refs)
}

/// A configuration secret's entry in the Secret: `config.<key>` with `:` as `.`, and the
/// variable that supplies it locally as its placeholder.
fn config_secret(key: &str, default_env: Option<&str>, secrets: &mut BTreeMap<String, SecretEntry>) -> SecretEntry {
    let secret_key: String = format!("config.{key}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '.' })
        .collect();
    let placeholder = default_env.map(str::to_string).unwrap_or_else(|| {
        key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
    });
    secrets.entry(secret_key.clone()).or_insert_with(|| SecretEntry { key: secret_key, placeholder }).clone()
}

/// Secrets a project declares land in the secrets project's stack when the provider has one.
fn declared_secrets_of<'a>(provider: &'a Provider, project: &Project) -> Vec<&'a crate::provider::SecretSpec> {
    let all = provider.projects.iter().flat_map(|declaring| declaring.secrets.iter().map(move |s| (declaring, s)));
    match &provider.secrets_project {
        Some(holder) if holder == &project.path => all.map(|(_, secret)| secret).collect(),
        Some(_) => Vec::new(),
        None => all.filter(|(declaring, _)| declaring.path == project.path).map(|(_, secret)| secret).collect(),
    }
}

/// What the runner does for a project that the operator has no field for.
fn unmapped(project: &Project) -> Vec<String> {
    let mut lines = Vec::new();
    for hook in &project.on_success {
        lines.push(format!(
            "{}: on_success hook ({}): run it yourself once the Stack succeeds",
            project.path,
            hook.describe()
        ));
    }
    for gate in &project.ready {
        lines.push(format!(
            "{}: ready gate {}: dependents start as soon as the Stack succeeds",
            project.path,
            gate.describe()
        ));
    }
    if let Some(retry) = &project.retry {
        lines.push(format!(
            "{}: retry policy ({} attempts): the operator retries every failed update with its own backoff",
            project.path, retry.attempts
        ));
    }
    if project.only_as_prerequisite {
        lines.push(format!(
            "{}: only_as_prerequisite: the operator reconciles this Stack like any other, and re-runs it when a dependent needs it fresh",
            project.path
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RepositoryRoot;
    use crate::provider::ProviderCatalog;

    const PROVIDER: &str = r#"
description = "seed 000 in a cluster"
[[config]]
key = "demo:region"
prompt = "Region"
default = "eu-west-1"

[[project]]
path = "infrastructure/vault"
phase = "infrastructure"
retry = { attempts = 3, backoff = "10s", on = ["connection reset"] }
ready = [{ tcp = "127.0.0.1:8200", timeout = "1m" }]

[[project]]
path = "update-vault-creds"
dir = "use-vault"
phase = "infrastructure"
targets = ["urn:pulumi:dev::use-vault::pulumi:providers:vault::creds"]
target_dependents = true
only_as_prerequisite = true
depends_on = ["infrastructure/vault"]

[[project]]
path = "use-vault"
phase = "infrastructure"
refresh = true
depends_on = ["infrastructure/vault"]
prerequisites = [{ project = "update-vault-creds", succeeded_within = "5m" }, { project = "infrastructure/vault", succeeded_within = "90m" }]
secrets = [{ key = "demo:db_password", prompt = "Database password", default_env = "DEMO_DB_PASSWORD" }]
on_success = [{ command = { argv = ["./notify", "done"], timeout = "1m" } }]

[[project]]
path = "kubernetes/applications/a-rather-long-application-name"
phase = "kubernetes"
depends_on = ["use-vault"]
"#;

    fn export(window: Duration, destroy: bool, reference: GitReference) -> Result<PkoExport> {
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path();
        std::fs::create_dir_all(root_path.join("providers")).unwrap();
        std::fs::write(root_path.join("providers/seed.toml"), PROVIDER).unwrap();
        for (folder, name) in [
            ("infrastructure/vault", "vault"),
            ("use-vault", "use-vault"),
            ("kubernetes/applications/a-rather-long-application-name", "long-app"),
        ] {
            let project = root_path.join("projects").join(folder);
            std::fs::create_dir_all(&project).unwrap();
            std::fs::write(project.join("Pulumi.yaml"), format!("name: {name}\nruntime: yaml\n")).unwrap();
        }
        let root = RepositoryRoot::at(root_path).unwrap();
        let provider = ProviderCatalog::new(root.clone()).load("seed", None).unwrap();
        let stack_config = StackConfig::parse(
            Path::new("config/pulumi/Pulumi.dev.yaml"),
            "encryptionsalt: v1:abc\nconfig:\n  demo:region: eu-west-1\n  demo:replicas: 3\n  demo:tags:\n    team: infra\n  demo:db_password:\n    secure: v1:c2VjcmV0\n".into(),
        )
        .unwrap();
        let environment = EnvironmentFile::parse(
            Path::new("config/pulumi/environment"),
            "PULUMI_STACK=dev\nPULUMI_BACKEND_URL=s3://state?region=eu-west-1\nAWS_REGION=eu-west-1\nVAULT_TOKEN=hvs.real-token\nDEMO_DB_PASSWORD=hunter2-hunter2\nPULUMI_CONFIG_PASSPHRASE=correct horse\nKUBECONFIG=.runner/kube/config\n",
        )
        .unwrap();
        let options = PkoExportOptions {
            namespace: "infra".into(),
            git: GitSource { url: "https://github.com/acme/infra.git".into(), reference },
            destroy_on_finalize: destroy,
            secret_name: "dev-runner-secrets".into(),
            default_window: window,
        };
        PkoExport::build(&provider, root.path(), "dev", &stack_config, &environment, &options)
    }

    #[test]
    fn seed_000_export() {
        let export = export(DEFAULT_PREREQUISITE_WINDOW, true, GitReference::Branch("main".into())).unwrap();
        insta::assert_snapshot!(export.render());
    }

    #[test]
    fn no_secret_value_is_ever_a_literal() {
        let text = export(DEFAULT_PREREQUISITE_WINDOW, false, GitReference::Commit("0123abc".into())).unwrap().render();
        for secret in ["hvs.real-token", "hunter2-hunter2", "correct horse", "c2VjcmV0"] {
            assert!(!text.contains(secret), "{secret} leaked:\n{text}");
        }
        assert!(text.contains("commit: 0123abc") && !text.contains("branch:"));
        assert!(!text.contains("destroyOnFinalize"));
    }

    #[test]
    fn every_dependency_and_prerequisite_is_an_edge_with_its_window() {
        let export = export(Duration::from_secs(7200), false, GitReference::Branch("main".into())).unwrap();
        let use_vault =
            export.documents.iter().find(|document| document["metadata"]["name"] == "dev-use-vault").unwrap();
        let edges: Vec<(String, String)> = use_vault["spec"]["prerequisites"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|entry| {
                (
                    entry["name"].as_str().unwrap().to_string(),
                    entry["requirement"]["succeededWithinDuration"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            edges,
            [("dev-infrastructure-vault".into(), "1h30m".into()), ("dev-update-vault-creds".into(), "5m".into())]
        );
        let app = export.names.iter().find(|(path, _)| path.as_str().starts_with("kubernetes/")).unwrap();
        assert!(app.1.shortened_from.is_some() && app.1.name.len() <= 42, "{:?}", app.1);
        let app_doc = export.documents.iter().find(|d| d["metadata"]["name"] == app.1.name.as_str()).unwrap();
        assert_eq!(app_doc["spec"]["prerequisites"][0]["requirement"]["succeededWithinDuration"], "2h");
    }

    #[test]
    fn hooks_gates_and_retries_are_listed_not_dropped() {
        let export = export(DEFAULT_PREREQUISITE_WINDOW, false, GitReference::Branch("main".into())).unwrap();
        let listed = export.not_exported.join("\n");
        for needle in [
            "on_success hook (run `./notify done`)",
            "ready gate tcp 127.0.0.1:8200",
            "retry policy (3 attempts)",
            "only_as_prerequisite",
        ] {
            assert!(listed.contains(needle), "{needle} missing from\n{listed}");
        }
        assert!(export.warnings.iter().any(|warning| warning.contains("KUBECONFIG")));
    }
}
