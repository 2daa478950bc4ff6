use std::path::{Path, PathBuf};

use super::{Backend, ChildEnvironment, PulumiManifest};
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::config::{RepositoryRoot, StackConfig};
use crate::error::{Result, UserError};
use crate::provider::{Project, Provider};

/// Where secrets are kept: the secrets project's own stack (MARA's layout), or else the shared
/// stack file through the first project's stack. Values only ever go in through
/// `pulumi config set --secret`, so they are stored encrypted and never in plain text.
#[derive(Debug, Clone)]
pub(crate) struct SecretStore {
    project_dir: PathBuf,
    qualified_stack: String,
    /// `--config-file` for `config set`, when the target is the shared stack file.
    config_file: Option<PathBuf>,
    /// The YAML file the secrets end up in, read to tell what is already set.
    stack_file: PathBuf,
    stack: String,
    project_name: String,
    /// True when the secrets go to the stack file every project shares, not one stack's own.
    shared: bool,
}

impl SecretStore {
    /// `use_secrets_project`: project secrets go to the secrets project when the provider names
    /// one; secret configuration keys always go to the shared file every project reads.
    pub(crate) fn locate(
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
        let manifest = PulumiManifest::load(&project_dir)
            .map_err(|err| UserError::Usage(crate::error::ErrorChain(&err).to_string()))?;
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
            shared: !own_stack,
        }))
    }

    /// The keys already set in the target stack file.
    pub(crate) fn keys_set(&self) -> Result<std::collections::BTreeSet<String>> {
        let config = StackConfig::load(&self.stack_file)?;
        Ok(config.keys().filter(|key| config.contains(key)).map(str::to_string).collect())
    }

    /// True when the secrets go to the stack file every project reads, to be decrypted by every stack.
    /// The stack that holds the secrets: `(project name, project folder)` and whether it exists
    /// yet (`None` when the backend cannot tell), so a caller can say a stack is about to be made.
    pub(crate) fn holder(&self, backend: &Backend) -> (&str, &Path, Option<bool>) {
        (&self.project_name, &self.project_dir, backend.stack_exists(&self.project_name, &self.stack))
    }

    pub(crate) fn is_shared(&self) -> bool {
        self.shared
    }

    /// The file the secrets end up in.
    pub(crate) fn stack_file(&self) -> &Path {
        &self.stack_file
    }

    /// Stores `value` encrypted, creating the stack first when needed (`config set` requires one).
    pub(crate) fn store(
        &self,
        pulumi: &Path,
        environment: &ChildEnvironment,
        backend: &Backend,
        key: &str,
        value: &str,
    ) -> Result<()> {
        if backend.stack_exists(&self.project_name, &self.stack) != Some(true) {
            let init = ChildProcess::new(pulumi)
                .args(["stack", "init", &self.qualified_stack, "--non-interactive", "--no-select"])
                .current_dir(&self.project_dir)
                .env_clear()
                .envs(environment.vars())
                .timeout(QUERY_TIMEOUT)
                .output_blocking(&Cancellation::process());
            if let ChildEnd::SpawnFailed(reason) = &init.end {
                return Err(UserError::Internal(format!("cannot run `pulumi stack init`: {reason}")));
            }
            let stderr = init.stderr_text();
            if !init.success() && !stderr.contains("already exists") {
                return Err(UserError::Internal(format!(
                    "`pulumi stack init {}` failed: {}",
                    self.qualified_stack,
                    stderr.trim()
                )));
            }
        }
        let mut command = ChildProcess::new(pulumi).args([
            "config",
            "set",
            "--secret",
            key,
            "--stack",
            &self.qualified_stack,
            "--non-interactive",
        ]);
        if let Some(file) = &self.config_file {
            command = command.arg("--config-file").arg(file);
        }
        // The value goes through stdin: an argument would show in the process list.
        let output = command
            .current_dir(&self.project_dir)
            .env_clear()
            .envs(environment.vars())
            // Pulumi reads all of stdin and drops one line end: this one, so a value that itself
            // ends with a line end keeps it.
            .stdin_bytes(format!("{value}\n"))
            .discard_stdout()
            .timeout(QUERY_TIMEOUT)
            .output_blocking(&Cancellation::process());
        if let ChildEnd::SpawnFailed(reason) = &output.end {
            return Err(UserError::Internal(format!("cannot run `pulumi config set`: {reason}")));
        }
        if output.success() {
            Ok(())
        } else {
            // Every printed form of the value, as everywhere else, not only its raw text.
            let stderr = crate::secrets::SecretMask::new([value.to_string()]).apply(&output.stderr_text());
            Err(UserError::Internal(format!("`pulumi config set --secret {key}` failed: {}", stderr.trim())))
        }
    }
}
