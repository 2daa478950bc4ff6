use std::path::{Path, PathBuf};

use crate::config::{normalize_path, RepositoryRoot};
use crate::error::{Location, Result, UserError};
use crate::provider::Provider;
use crate::pulumi::PulumiManifest;

/// The one stack file every project of a stack reads: `config/pulumi/Pulumi.<stack>.yaml` under
/// the root. A project whose `Pulumi.yaml` names another folder with `config:` or `stackConfigDir`
/// would read a second file for the same stack, which prompts, hints and `validate` never see:
/// that is refused, naming both folders.
pub(crate) fn shared_stack_file(root: &RepositoryRoot, provider: &Provider, stack: &str) -> Result<PathBuf> {
    let runner_dir = normalize_path(&root.config_dir());
    for project in &provider.projects {
        let dir = provider.dir_of(project);
        let Ok(manifest) = PulumiManifest::load(&dir) else { continue };
        let Some(project_dir) = manifest.config_dir else { continue };
        if normalize_path(&project_dir) != runner_dir {
            return Err(UserError::StackFileConflict {
                location: config_line(&dir),
                project: project.path.to_string(),
                project_dir,
                runner_dir,
            });
        }
    }
    Ok(root.stack_config_file(stack))
}

/// `Pulumi.yaml:<line>` of the `config:` or `stackConfigDir:` entry.
fn config_line(project_dir: &Path) -> Location {
    let file = ["Pulumi.yaml", "Pulumi.yml"]
        .iter()
        .map(|name| project_dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| project_dir.join("Pulumi.yaml"));
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let line = text
        .lines()
        .position(|line| line.starts_with("config:") || line.starts_with("stackConfigDir:"))
        .map(|index| index + 1);
    Location { path: file, line }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderCatalog;

    fn checkout(config_line: &str) -> (tempfile::TempDir, RepositoryRoot) {
        let dir = tempfile::tempdir().unwrap();
        let write = |relative: &str, text: &str| {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("providers/demo.toml", "[[project]]\npath = \"kubernetes/a\"\nphase = \"kubernetes\"\n");
        write("projects/kubernetes/a/Pulumi.yaml", &format!("name: a\nruntime: yaml\n{config_line}\n"));
        std::fs::create_dir_all(dir.path().join("config/pulumi")).unwrap();
        let root = RepositoryRoot::at(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn a_project_naming_the_runner_s_folder_shares_its_file() {
        let (dir, root) = checkout("config: ../../../config/pulumi");
        let provider = ProviderCatalog::new(root.clone()).load("demo", None).unwrap();
        assert_eq!(
            shared_stack_file(&root, &provider, "dev").unwrap(),
            dir.path().join("config/pulumi/Pulumi.dev.yaml")
        );
    }

    #[test]
    fn a_project_naming_another_folder_is_refused_naming_both() {
        let (dir, root) = checkout("stackConfigDir: ../../../elsewhere");
        let provider = ProviderCatalog::new(root.clone()).load("demo", None).unwrap();
        let err = shared_stack_file(&root, &provider, "dev").unwrap_err().to_string();
        assert!(err.contains("Pulumi.yaml:3"), "{err}");
        assert!(err.contains(&dir.path().join("elsewhere").display().to_string()), "{err}");
        assert!(err.contains(&dir.path().join("config/pulumi").display().to_string()), "{err}");
    }
}
