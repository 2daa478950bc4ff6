use std::ffi::OsStr;
use std::path::Path;

use clap_complete::engine::CompletionCandidate;

use crate::config::RepositoryRoot;
use crate::provider::ProviderCatalog;

/// What a completion can know from the words already typed: the repository (`--root`, else
/// found from the shell's folder) and the provider (`--provider`/`-p`, before or after the
/// subcommand as MARA writes it). Every lookup yields nothing rather than an error: a broken
/// repository must not put messages into the middle of a command line.
#[derive(Debug, Clone, Default)]
pub(crate) struct CompletionContext {
    root: Option<RepositoryRoot>,
    provider: Option<String>,
}

/// Which values an argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompletedValue {
    Provider,
    Stack,
    Project,
}

impl CompletionContext {
    /// `words`: the command line as the shell splits it, the program's name first.
    pub(crate) fn from_words(words: &[String], current_dir: &Path) -> Self {
        let mut root = None;
        let mut provider = None;
        for (index, word) in words.iter().enumerate().skip(1) {
            let next = || words.get(index + 1).cloned();
            match word.as_str() {
                "--root" => root = next(),
                "--provider" | "-p" => provider = next(),
                _ => {
                    if let Some(value) = word.strip_prefix("--root=") {
                        root = Some(value.to_string());
                    } else if let Some(value) = word.strip_prefix("--provider=") {
                        provider = Some(value.to_string());
                    } else if let Some(value) = word.strip_prefix("-p").filter(|_| !word.starts_with("--")) {
                        provider = Some(value.to_string());
                    }
                }
            }
        }
        let root = match root.filter(|root| !root.is_empty()) {
            Some(root) => RepositoryRoot::at(&current_dir.join(root)).ok(),
            None => RepositoryRoot::discover(current_dir).ok(),
        };
        Self { root, provider: provider.filter(|name| !name.is_empty()) }
    }

    /// The candidates for `value` that start with what is typed so far.
    pub(crate) fn complete(&self, value: CompletedValue, current: &OsStr) -> Vec<CompletionCandidate> {
        let current = current.to_string_lossy();
        let candidates = match value {
            CompletedValue::Provider => self.providers(),
            CompletedValue::Stack => self.stacks().into_iter().map(|stack| (stack, String::new())).collect(),
            CompletedValue::Project => self.projects(),
        };
        candidates
            .into_iter()
            .filter(|(name, _)| name.starts_with(current.as_ref()))
            .map(|(name, help)| CompletionCandidate::new(name).help((!help.is_empty()).then(|| help.into())))
            .collect()
    }

    /// Provider names with their descriptions; one that does not load still completes.
    pub(crate) fn providers(&self) -> Vec<(String, String)> {
        let Some(catalog) = self.catalog() else { return Vec::new() };
        let names = catalog.names().unwrap_or_default();
        names
            .into_iter()
            .map(|name| {
                let description = catalog.load(&name, None).map(|provider| provider.description).unwrap_or_default();
                (name, description)
            })
            .collect()
    }

    /// `config/pulumi/Pulumi.<stack>.yaml`, sorted.
    pub(crate) fn stacks(&self) -> Vec<String> {
        self.root.as_ref().map(RepositoryRoot::stack_names).unwrap_or_default()
    }

    /// Project paths with their descriptions: of the provider on the command line when it is a
    /// known one, else of every provider that loads.
    pub(crate) fn projects(&self) -> Vec<(String, String)> {
        let Some(catalog) = self.catalog() else { return Vec::new() };
        let names = catalog.names().unwrap_or_default();
        let chosen: Vec<String> = match &self.provider {
            Some(provider) if names.contains(provider) => vec![provider.clone()],
            _ => names,
        };
        let mut projects: Vec<(String, String)> = chosen
            .iter()
            .filter_map(|name| catalog.load(name, None).ok())
            .flat_map(|provider| provider.projects)
            .map(|project| (project.path.to_string(), project.description))
            .collect();
        projects.sort();
        projects.dedup_by(|a, b| a.0 == b.0);
        projects
    }

    fn catalog(&self) -> Option<ProviderCatalog> {
        self.root.clone().map(ProviderCatalog::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    fn repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "providers/one.toml",
            "description = \"first\"\n[[project]]\npath = \"net\"\nphase = \"infrastructure\"\n",
        );
        write("providers/two.toml", "[[project]]\npath = \"app\"\nphase = \"kubernetes\"\ndescription = \"the app\"\n");
        write("providers/broken.toml", "[[project\n");
        write("config/pulumi/Pulumi.dev.yaml", "config: {}\n");
        write("config/pulumi/Pulumi.prod.yaml", "config: {}\n");
        write("config/pulumi/environment", "PULUMI_STACK=dev\n");
        dir
    }

    #[test]
    fn the_provider_on_the_line_narrows_the_projects() {
        let dir = repository();
        let everything = CompletionContext::from_words(&words("runner show --only "), dir.path());
        let paths = |context: &CompletionContext| context.projects().into_iter().map(|p| p.0).collect::<Vec<_>>();
        assert_eq!(paths(&everything), ["app", "net"]);
        for line in ["runner show -p two --only ", "runner -ptwo show", "runner show --provider=two --from "] {
            assert_eq!(paths(&CompletionContext::from_words(&words(line), dir.path())), ["app"], "{line}");
        }
        let unknown = CompletionContext::from_words(&words("runner show -p nope --only "), dir.path());
        assert_eq!(paths(&unknown), ["app", "net"], "an unknown provider narrows nothing");
    }

    #[test]
    fn providers_and_stacks_come_from_the_repository() {
        let dir = repository();
        let nested = dir.path().join("config/pulumi");
        let context = CompletionContext::from_words(&words("runner up"), &nested);
        assert_eq!(context.root.as_ref().map(|root| root.path()), Some(dir.path()));
        let providers: Vec<String> = context.providers().into_iter().map(|p| p.0).collect();
        assert_eq!(providers, ["broken", "one", "two"]);
        assert_eq!(context.stacks(), ["dev", "prod"]);
        let typed: Vec<String> = context
            .complete(CompletedValue::Provider, OsStr::new("o"))
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect();
        assert_eq!(typed, ["one"]);
    }

    #[test]
    fn a_mara_checkout_completes_its_built_in_providers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pulumi/python/automation")).unwrap();
        std::fs::create_dir_all(dir.path().join("config/pulumi")).unwrap();
        let context = CompletionContext::from_words(&words("runner show -p aws --only "), dir.path());
        let providers: Vec<String> = context.providers().into_iter().map(|p| p.0).collect();
        assert_eq!(providers, ["aws", "digitalocean", "linode"]);
        let projects: Vec<String> = context.projects().into_iter().map(|p| p.0).collect();
        assert!(projects.contains(&"infrastructure/aws/eks".to_string()), "{projects:?}");
        assert!(!projects.iter().any(|p| p.contains("linode")), "{projects:?}");
    }

    #[test]
    fn no_repository_completes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let context = CompletionContext::from_words(&words("runner up --root missing -p x"), dir.path());
        for value in [CompletedValue::Provider, CompletedValue::Stack, CompletedValue::Project] {
            assert!(context.complete(value, OsStr::new("")).is_empty());
        }
    }
}
