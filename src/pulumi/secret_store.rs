use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Backend, ChildEnvironment, PulumiManifest};
use crate::config::{RepositoryRoot, StackConfig};
use crate::error::{Result, UserError};
use crate::provider::{Project, Provider};

/// Where secrets are kept: the secrets project's own stack (MARA's layout), or else the shared
/// stack file through the first project's stack. Values only ever go in through
/// `pulumi config set --secret`, so they are stored encrypted and never in plain text.
#[derive(Debug, Clone)]
pub struct SecretStore {
    project_dir: PathBuf,
    qualified_stack: String,
    /// `--config-file` for `config set`, when the target is the shared stack file.
    config_file: Option<PathBuf>,
    /// The YAML file the secrets end up in, read to tell what is already set.
    stack_file: PathBuf,
    stack: String,
    project_name: String,
}

impl SecretStore {
    /// `use_secrets_project`: project secrets go to the secrets project when the provider names
    /// one; secret configuration keys always go to the shared file every project reads.
    pub fn locate(
        root: &RepositoryRoot,
        provider: &Provider,
        stack: &str,
        backend: &Backend,
        use_secrets_project: bool,
    ) -> Result<Option<Self>> {
        let secrets_project = provider.secrets_project.as_ref().filter(|_| use_secrets_project);
        let project: Option<&Project> = match secrets_project {
            Some(path) => provider.project(path),
            None => provider.projects.first(),
        };
        let Some(project) = project else { return Ok(None) };
        let project_dir = provider.dir_of(project);
        let manifest = PulumiManifest::load(&project_dir).map_err(UserError::Usage)?;
        let shared = root.stack_config_file(stack);
        let own_stack = secrets_project.is_some();
        let (config_file, stack_file) = match (&manifest.config_dir, own_stack) {
            (Some(dir), _) => (None, dir.join(format!("Pulumi.{stack}.yaml"))),
            (None, true) => (None, project_dir.join(format!("Pulumi.{stack}.yaml"))),
            (None, false) => (Some(shared.clone()), shared),
        };
        Ok(Some(Self {
            qualified_stack: backend.qualified_stack(&manifest.name, stack),
            project_dir,
            config_file,
            stack_file,
            stack: stack.to_string(),
            project_name: manifest.name,
        }))
    }

    /// The keys already set in the target stack file.
    pub fn keys_set(&self) -> Result<std::collections::BTreeSet<String>> {
        let config = StackConfig::load(&self.stack_file)?;
        Ok(config.keys().filter(|key| config.contains(key)).map(str::to_string).collect())
    }

    /// The exact command a person runs to set `key` (it reads the value from stdin).
    pub fn command_for(&self, key: &str, root: &Path) -> String {
        let dir = self.project_dir.strip_prefix(root).unwrap_or(&self.project_dir);
        let mut command =
            format!("pulumi config set --secret {key} --stack {} --cwd {}", self.qualified_stack, dir.display());
        if let Some(file) = &self.config_file {
            let file = file.strip_prefix(root).unwrap_or(file);
            command.push_str(&format!(" --config-file {}", file.display()));
        }
        command
    }

    /// Stores `value` encrypted, creating the stack first when needed (`config set` requires one).
    pub fn store(
        &self,
        pulumi: &Path,
        environment: &ChildEnvironment,
        backend: &Backend,
        key: &str,
        value: &str,
    ) -> Result<()> {
        if backend.stack_exists(&self.project_name, &self.stack) != Some(true) {
            let init = Command::new(pulumi)
                .args(["stack", "init", &self.qualified_stack, "--non-interactive", "--no-select"])
                .current_dir(&self.project_dir)
                .env_clear()
                .envs(environment.vars())
                .stdin(Stdio::null())
                .output()
                .map_err(|err| UserError::Internal(format!("cannot run `pulumi stack init`: {err}")))?;
            let stderr = String::from_utf8_lossy(&init.stderr);
            if !init.status.success() && !stderr.contains("already exists") {
                return Err(UserError::Internal(format!(
                    "`pulumi stack init {}` failed: {}",
                    self.qualified_stack,
                    stderr.trim()
                )));
            }
        }
        let mut command = Command::new(pulumi);
        command.args(["config", "set", "--secret", key, "--stack", &self.qualified_stack, "--non-interactive"]);
        if let Some(file) = &self.config_file {
            command.arg("--config-file").arg(file);
        }
        // The value goes through stdin: an argument would show in the process list.
        let mut child = command
            .current_dir(&self.project_dir)
            .env_clear()
            .envs(environment.vars())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| UserError::Internal(format!("cannot run `pulumi config set`: {err}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(value.as_bytes());
        }
        let output = child.wait_with_output().map_err(|err| UserError::Internal(err.to_string()))?;
        if output.status.success() {
            Ok(())
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr).replace(value, crate::secrets::MASK);
            Err(UserError::Internal(format!("`pulumi config set --secret {key}` failed: {}", stderr.trim())))
        }
    }
}
