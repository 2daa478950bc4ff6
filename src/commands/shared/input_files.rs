use std::path::{Path, PathBuf};

use crate::config::RepositoryRoot;
use crate::error::{Result, UserError};
use crate::provider::Provider;

/// What the runner reads, which an output file (`--report`, `-o`) must never replace: the
/// environment file, stack files, provider files, `Pulumi.yaml`s and everything inside the
/// project folders. Checked before anything runs, so a typo never costs the user a file.
pub(crate) struct InputFiles {
    /// Files, canonical where they exist.
    files: Vec<PathBuf>,
    /// Folders whose every file is an input.
    folders: Vec<PathBuf>,
}

impl InputFiles {
    pub(crate) fn of(root: &RepositoryRoot, provider: Option<&Provider>) -> Self {
        let mut files = vec![root.environment_file()];
        let mut folders = vec![root.providers_dir()];
        match provider {
            Some(provider) => {
                files.push(provider.file.clone());
                folders.extend(provider.projects.iter().map(|project| root.resolve(&provider.dir_of(project))));
            }
            None => folders.push(root.default_projects_root()),
        }
        Self {
            files: files.iter().map(|file| canonical(file)).collect(),
            folders: folders.iter().map(|dir| canonical(dir)).collect(),
        }
    }

    /// Refuses `path` (given with `flag`, relative to the current folder) when it is an input.
    pub(crate) fn refuse_overwrite(&self, flag: &str, path: &Path) -> Result<()> {
        let target = canonical(&std::env::current_dir().unwrap_or_default().join(path));
        let name = target.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        let stack_file = name.starts_with("Pulumi.") && (name.ends_with(".yaml") || name.ends_with(".yml"));
        let what = if self.files.contains(&target) {
            Some("an input of the runner")
        } else if stack_file {
            Some("a Pulumi project or stack file")
        } else if self.folders.iter().any(|folder| target.starts_with(folder)) {
            Some("inside a folder the runner reads (providers, projects)")
        } else {
            None
        };
        match what {
            Some(what) => Err(UserError::Usage(format!(
                "`{flag}` would overwrite `{}`, {what}: write it elsewhere",
                path.display()
            ))),
            None => Ok(()),
        }
    }
}

/// The path with its existing part resolved (symlinks, `..`), so two spellings of one file meet.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => canonical(parent).join(name),
        _ => crate::config::normalize_path(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_in_any_spelling_are_refused_and_other_files_allowed() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["providers", "projects/a", "config/pulumi", "out"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        }
        std::fs::write(dir.path().join("config/pulumi/environment"), "A=1\n").unwrap();
        let root = RepositoryRoot::at(dir.path()).unwrap();
        let inputs = InputFiles::of(&root, None);
        let at = |relative: &str| dir.path().join(relative);
        for refused in [
            at("config/pulumi/environment"),
            at("out/../config/pulumi/environment"),
            at("config/pulumi/Pulumi.dev.yaml"),
            at("providers/aws.toml"),
            at("projects/a/Pulumi.yaml"),
            at("projects/a/new-file.json"),
            at("elsewhere/Pulumi.yml"),
        ] {
            let message = inputs.refuse_overwrite("--report", &refused).unwrap_err().to_string();
            assert!(message.contains(&refused.display().to_string()), "{message}");
        }
        for allowed in [at("out/report.json"), at("report.xml"), at("config/pulumi/report.json")] {
            assert!(inputs.refuse_overwrite("-o", &allowed).is_ok(), "{}", allowed.display());
        }
    }
}
