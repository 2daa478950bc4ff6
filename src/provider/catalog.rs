use super::name_suggestion::nearest_name;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::builtin_providers::{builtin_label, builtin_provider, builtin_set, BUILTIN_PROVIDERS};
use super::project_conversion::{check_cluster_marks, ProjectConversion};
use super::provider_file::ProviderFile;
use super::{ConfigKey, ProjectPath, Provider};
use crate::config::{read_text, LineIndex, RepositoryRoot};
use crate::error::{Location, Result, UserError};

const MAX_EXTENDS_DEPTH: usize = 8;

/// The provider definitions under `providers/`, and in a MARA checkout the built-in ones too.
#[derive(Debug, Clone)]
pub struct ProviderCatalog {
    root: RepositoryRoot,
}

/// Where a provider definition comes from, as `runner providers` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderOrigin {
    /// A file under `providers/`.
    File(PathBuf),
    /// Compiled into the binary (a MARA checkout with no file of that name).
    BuiltIn,
}

/// One definition's text and the name it goes by in messages.
struct Definition {
    text: String,
    /// The file, or a label for a built-in definition.
    label: PathBuf,
    builtin: bool,
}

impl ProviderCatalog {
    pub fn new(root: RepositoryRoot) -> Self {
        Self { root }
    }

    /// Provider names, sorted: every `providers/*.toml` (shared sets in `providers/common/` are
    /// not providers), plus the built-in ones in a MARA checkout.
    pub fn names(&self) -> Result<Vec<String>> {
        let dir = self.root.providers_dir();
        let mut names: Vec<String> = Vec::new();
        let mara = self.root.is_mara_checkout();
        if mara {
            names.extend(BUILTIN_PROVIDERS.iter().map(|(name, _)| name.to_string()));
        }
        if !mara || dir.is_dir() {
            let entries =
                std::fs::read_dir(&dir).map_err(|err| UserError::Unreadable { path: dir.clone(), source: err })?;
            names.extend(
                entries
                    .filter_map(|entry| entry.ok())
                    .map(|entry| entry.path())
                    .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "toml"))
                    .filter_map(|path| path.file_stem().map(|stem| stem.to_string_lossy().into_owned())),
            );
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Where `name` is defined: a file under `providers/` wins over a built-in definition.
    pub fn origin(&self, name: &str) -> Option<ProviderOrigin> {
        let file = self.root.providers_dir().join(format!("{name}.toml"));
        if file.is_file() {
            Some(ProviderOrigin::File(file))
        } else if self.root.is_mara_checkout() && builtin_provider(name).is_some() {
            Some(ProviderOrigin::BuiltIn)
        } else {
            None
        }
    }

    /// Loads a provider with its `extends` chain resolved.
    /// `projects_root` overrides the provider's own (from `--projects-root`).
    pub fn load(&self, name: &str, projects_root: Option<&Path>) -> Result<Provider> {
        let known = self.names()?;
        let origin = known.iter().any(|known| known == name).then(|| self.origin(name)).flatten();
        let Some(origin) = origin else {
            return Err(UserError::UnknownProvider {
                name: name.to_string(),
                suggestion: nearest_name(name, &known),
                known,
            });
        };
        let definition = match origin {
            ProviderOrigin::File(file) => self.read_definition(&file)?,
            ProviderOrigin::BuiltIn => Definition {
                text: builtin_provider(name).unwrap_or_default().to_string(),
                label: builtin_label(&format!("{name}.toml")),
                builtin: true,
            },
        };
        let file = definition.label.clone();
        let mut provider = Provider {
            name: name.to_string(),
            description: String::new(),
            infra_type: None,
            file: file.clone(),
            projects_root: self.root.default_projects_root(),
            config: Vec::new(),
            secrets_project: None,
            projects: Vec::new(),
            strict_phase_barrier: false,
            pools: Default::default(),
            plain_environment: Vec::new(),
        };
        self.merge_definition(&mut provider, &definition, 0, &mut Vec::new())?;
        if let Some(root) = projects_root {
            provider.projects_root = crate::config::normalize_path(&self.root.resolve(root));
        }
        if let Some(secrets) = &provider.secrets_project {
            if provider.project(secrets).is_none() {
                let known: Vec<String> = provider.projects.iter().map(|p| p.path.to_string()).collect();
                return Err(UserError::UnknownProject {
                    location: Location::file(&file),
                    project: format!("{secrets}` named by `secrets_project"),
                    suggestion: nearest_name(secrets.as_str(), &known),
                });
            }
        }
        Ok(provider)
    }

    fn read_definition(&self, file: &Path) -> Result<Definition> {
        let text = read_text(file)?.ok_or_else(|| UserError::Unreadable {
            path: file.to_path_buf(),
            source: UserError::io_reason(std::io::ErrorKind::NotFound, "no such file"),
        })?;
        Ok(Definition { text, label: file.to_path_buf(), builtin: false })
    }

    /// `providers/common/<name>.toml`, or in a MARA checkout the built-in set of that name.
    fn shared_set(&self, name: &str) -> Option<Result<Definition>> {
        let file = self.root.providers_dir().join("common").join(format!("{name}.toml"));
        if file.is_file() {
            return Some(self.read_definition(&file));
        }
        let text = builtin_set(name).filter(|_| self.root.is_mara_checkout())?;
        Some(Ok(Definition {
            text: text.to_string(),
            label: builtin_label(&format!("common/{name}.toml")),
            builtin: true,
        }))
    }

    fn merge_definition(
        &self,
        provider: &mut Provider,
        definition: &Definition,
        depth: usize,
        chain: &mut Vec<PathBuf>,
    ) -> Result<()> {
        let (file, text) = (definition.label.as_path(), definition.text.as_str());
        // One index per file, so each location is a binary search rather than a scan from the
        // start: a large provider file would otherwise take time quadratic in its size.
        let lines = LineIndex::new(text);
        let at = |offset: usize| lines.location(file, offset);
        let parsed: ProviderFile = toml::from_str(text).map_err(|err| UserError::InvalidFile {
            location: Location { path: file.to_path_buf(), line: err.span().map(|span| lines.line(span.start)) },
            message: super::name_suggestion::with_suggestion(&err.message().trim_end_matches('\n').replace('\n', "; ")),
        })?;

        chain.push(file.to_path_buf());
        if let Some(base) = &parsed.extends {
            let name = base.get_ref();
            if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(UserError::InvalidFile {
                    location: at(base.span().start),
                    message: format!(
                        "`extends = \"{name}\"` must name a set in `providers/common/`, without `/`, `\\` or a leading `.`"
                    ),
                });
            }
            let base_file = self.root.providers_dir().join("common").join(format!("{}.toml", base.get_ref()));
            let Some(base_definition) = self.shared_set(name) else {
                return Err(UserError::InvalidFile {
                    location: at(base.span().start),
                    message: format!(
                        "`extends` names `{}`, but `{}` does not exist",
                        base.get_ref(),
                        base_file.display()
                    ),
                });
            };
            let base_definition = base_definition?;
            if chain.contains(&base_definition.label) || depth >= MAX_EXTENDS_DEPTH {
                return Err(UserError::InvalidFile {
                    location: at(base.span().start),
                    message: format!("`extends = \"{}\"` forms a loop of shared sets", base.get_ref()),
                });
            }
            self.merge_definition(provider, &base_definition, depth + 1, chain)?;
        }

        if depth == 0 {
            provider.description = parsed.description.clone().unwrap_or_default();
            provider.infra_type = parsed.infra_type.clone();
        }
        if let Some(strict) = parsed.strict_phase_barrier {
            provider.strict_phase_barrier = strict;
        }
        for (name, limit) in &parsed.pools {
            let value = *limit.get_ref();
            if !(1..=10_000).contains(&value) {
                return Err(UserError::InvalidFile {
                    location: at(limit.span().start),
                    message: format!("pool `{name}` has limit {value}; write a number of projects from 1 to 10000"),
                });
            }
            provider.pools.insert(name.clone(), value as usize);
        }
        for name in &parsed.plain_environment {
            if !provider.plain_environment.contains(name) {
                provider.plain_environment.push(name.clone());
            }
        }
        if let Some(secrets) = &parsed.secrets_project {
            provider.secrets_project = Some(ProjectPath::new(secrets.get_ref()));
        }
        // A built-in definition names the runner repository's copy of MARA's manifests; inside
        // a checkout the projects are the checkout's own.
        if let Some(root) = parsed.projects_root.as_ref().filter(|_| !definition.builtin) {
            provider.projects_root = crate::config::normalize_path(&self.root.resolve(Path::new(root.get_ref())));
        }
        for key in parsed.config {
            let entry = ConfigKey {
                prompt: key.prompt.unwrap_or_else(|| key.key.clone()),
                default: key.default.as_ref().map(toml_scalar),
                choices: key.choices.iter().map(toml_scalar).collect(),
                key: key.key,
                default_env: key.default_env,
                kind: key.kind,
                secret: key.secret,
            };
            provider.config.retain(|existing| existing.key != entry.key);
            provider.config.push(entry);
        }
        // Positions by path, so thousands of projects or amendments stay linear.
        let mut positions: HashMap<ProjectPath, usize> =
            provider.projects.iter().enumerate().map(|(position, project)| (project.path.clone(), position)).collect();
        for spanned in parsed.projects {
            let origin = at(spanned.span().start);
            let conversion = ProjectConversion { root: &self.root, origin: &origin, at: &at };
            let project = conversion.convert(spanned.into_inner())?;
            if let Some(&first) = positions.get(&project.path) {
                return Err(UserError::DuplicateProject {
                    location: origin,
                    project: project.path.to_string(),
                    first: provider.projects[first].origin.clone(),
                });
            }
            positions.insert(project.path.clone(), provider.projects.len());
            provider.projects.push(project);
        }
        for spanned in parsed.amendments {
            let spanned_start = spanned.span().start;
            let amendment = spanned.into_inner();
            let path = ProjectPath::new(amendment.path.get_ref());
            let Some(&position) = positions.get(&path) else {
                let known: Vec<String> = provider.projects.iter().map(|p| p.path.to_string()).collect();
                return Err(UserError::UnknownProject {
                    location: at(amendment.path.span().start),
                    suggestion: nearest_name(path.as_str(), &known),
                    project: path.to_string(),
                });
            };
            let project = &mut provider.projects[position];
            if let Some(provides) = amendment.provides_cluster {
                project.provides_cluster = provides;
            }
            if let Some(needs) = amendment.needs_cluster {
                project.needs_cluster = needs;
            }
            if let Some(pool) = amendment.pool {
                project.pool = Some(pool);
            }
            if let Some(always_run) = amendment.always_run {
                project.always_run = always_run;
            }
            for (name, value) in amendment.mock_outputs {
                project.mock_outputs.insert(name, serde_json::to_value(value).unwrap_or_default());
            }
            check_cluster_marks(project, &at(spanned_start))?;
            let mut present: HashSet<ProjectPath> = project.depends_on.iter().cloned().collect();
            for dependency in amendment.depends_on {
                let location = at(dependency.span().start);
                let dependency = ProjectPath::new(dependency.get_ref());
                if present.insert(dependency.clone()) {
                    project.depends_on.push(dependency);
                    project.dependency_origins.push(location);
                }
            }
        }
        chain.pop();
        Ok(())
    }

    /// Checks what the graph cannot: every project folder exists and holds a `Pulumi.yaml`.
    pub fn check_project_folders(provider: &Provider) -> Result<()> {
        for project in &provider.projects {
            let dir = provider.dir_of(project);
            let has_manifest = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"].iter().any(|name| dir.join(name).is_file());
            if !has_manifest {
                return Err(UserError::MissingPulumiYaml {
                    location: project.origin.clone(),
                    project: project.path.to_string(),
                    dir,
                });
            }
        }
        Ok(())
    }
}

fn toml_scalar(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The closest known name, when it is close enough to be a likely typo.
#[cfg(test)]
mod builtin_tests {
    use super::*;

    fn mara_checkout() -> (tempfile::TempDir, RepositoryRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pulumi/python/automation")).unwrap();
        std::fs::create_dir_all(dir.path().join("config/pulumi")).unwrap();
        let root = RepositoryRoot::at(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn a_checkout_without_providers_uses_the_built_in_ones_over_its_own_projects() {
        let (dir, root) = mara_checkout();
        let catalog = ProviderCatalog::new(root);
        assert_eq!(catalog.names().unwrap(), ["aws", "digitalocean", "linode"]);
        assert_eq!(catalog.origin("aws"), Some(ProviderOrigin::BuiltIn));
        let aws = catalog.load("aws", None).unwrap();
        assert_eq!(aws.projects_root, dir.path().join("pulumi/python"));
        assert_eq!(aws.secrets_project, Some(ProjectPath::new("kubernetes/secrets")));
        assert!(
            aws.project(&ProjectPath::new("kubernetes/applications/sirius")).is_some(),
            "the shared set is built in"
        );
        assert!(aws.file.display().to_string().contains("built-in"));
        assert!(catalog.load("local", None).is_err());
    }

    #[test]
    fn a_providers_folder_in_a_checkout_overrides_and_adds() {
        let (dir, root) = mara_checkout();
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        std::fs::write(
            dir.path().join("providers/aws.toml"),
            "description = \"ours\"\nextends = \"kubernetes\"\n[[project]]\npath = \"infrastructure/aws/vpc\"\nphase = \"infrastructure\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("providers/extra.toml"), "description = \"added\"\n").unwrap();
        let catalog = ProviderCatalog::new(root);
        assert_eq!(catalog.names().unwrap(), ["aws", "digitalocean", "extra", "linode"]);
        assert_eq!(catalog.origin("aws"), Some(ProviderOrigin::File(dir.path().join("providers/aws.toml"))));
        let aws = catalog.load("aws", None).unwrap();
        assert_eq!(aws.description, "ours");
        assert_eq!(aws.projects_root, dir.path().join("pulumi/python"), "a checkout's projects by default");
        assert_eq!(aws.projects.len(), 13, "12 of the built-in shared set, 1 of its own");
        assert_eq!(catalog.origin("linode"), Some(ProviderOrigin::BuiltIn));
    }

    #[test]
    fn a_runner_repository_has_no_built_in_providers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("providers")).unwrap();
        let catalog = ProviderCatalog::new(RepositoryRoot::at(dir.path()).unwrap());
        assert!(catalog.names().unwrap().is_empty());
        assert!(catalog.origin("aws").is_none());
    }
}
