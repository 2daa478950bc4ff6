use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::project_conversion::{check_cluster_marks, ProjectConversion};
use super::provider_file::ProviderFile;
use super::{ConfigKey, ProjectPath, Provider};
use crate::config::{read_text, LineIndex, RepositoryRoot};
use crate::error::{Location, Result, UserError};

const MAX_EXTENDS_DEPTH: usize = 8;

/// The provider definitions under `providers/`.
#[derive(Debug, Clone)]
pub struct ProviderCatalog {
    root: RepositoryRoot,
}

impl ProviderCatalog {
    pub fn new(root: RepositoryRoot) -> Self {
        Self { root }
    }

    /// Provider names, sorted: every `providers/*.toml` (shared sets in `providers/common/` are not providers).
    pub fn names(&self) -> Result<Vec<String>> {
        let dir = self.root.providers_dir();
        let entries = std::fs::read_dir(&dir)
            .map_err(|err| UserError::Unreadable { path: dir.clone(), reason: err.to_string() })?;
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path())
            .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "toml"))
            .filter_map(|path| path.file_stem().map(|stem| stem.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Loads `providers/<name>.toml` with its `extends` chain resolved.
    /// `projects_root` overrides the provider's own (from `--projects-root`).
    pub fn load(&self, name: &str, projects_root: Option<&Path>) -> Result<Provider> {
        let known = self.names()?;
        if !known.iter().any(|known| known == name) {
            return Err(UserError::UnknownProvider {
                name: name.to_string(),
                suggestion: nearest_name(name, &known),
                known,
            });
        }
        let file = self.root.providers_dir().join(format!("{name}.toml"));
        let mut provider = Provider {
            name: name.to_string(),
            description: String::new(),
            infra_type: None,
            file: file.clone(),
            projects_root: self.root.path().join("projects"),
            config: Vec::new(),
            secrets_project: None,
            projects: Vec::new(),
            strict_phase_barrier: false,
            pools: Default::default(),
        };
        self.merge_file(&mut provider, &file, 0, &mut Vec::new())?;
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

    fn merge_file(&self, provider: &mut Provider, file: &Path, depth: usize, chain: &mut Vec<PathBuf>) -> Result<()> {
        let text = read_text(file)?
            .ok_or_else(|| UserError::Unreadable { path: file.to_path_buf(), reason: "no such file".into() })?;
        // One index per file, so each location is a binary search rather than a scan from the
        // start: a large provider file would otherwise take time quadratic in its size.
        let lines = LineIndex::new(&text);
        let at = |offset: usize| lines.location(file, offset);
        let parsed: ProviderFile = toml::from_str(&text).map_err(|err| UserError::InvalidFile {
            location: Location { path: file.to_path_buf(), line: err.span().map(|span| lines.line(span.start)) },
            message: err.message().trim_end_matches('\n').replace('\n', "; "),
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
            if chain.contains(&base_file) || depth >= MAX_EXTENDS_DEPTH {
                return Err(UserError::InvalidFile {
                    location: at(base.span().start),
                    message: format!("`extends = \"{}\"` forms a loop of shared sets", base.get_ref()),
                });
            }
            if !base_file.is_file() {
                return Err(UserError::InvalidFile {
                    location: at(base.span().start),
                    message: format!(
                        "`extends` names `{}`, but `{}` does not exist",
                        base.get_ref(),
                        base_file.display()
                    ),
                });
            }
            self.merge_file(provider, &base_file, depth + 1, chain)?;
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
        if let Some(secrets) = &parsed.secrets_project {
            provider.secrets_project = Some(ProjectPath::new(secrets.get_ref()));
        }
        if let Some(root) = &parsed.projects_root {
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
pub fn nearest_name(name: &str, known: &[String]) -> Option<String> {
    known
        .iter()
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.clone())
}
