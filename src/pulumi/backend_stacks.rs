//! The run's stacks as the backend holds them, read without a `pulumi` process: the fingerprints
//! of `up`s (the project's inputs and its upstream outputs) and their proofs for a skip, and the
//! stack outputs hooks, gates and reports read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::backend_state_files::StateReadError;
use super::{input_digest, Backend, ChildEnvironment, ProjectInputs, PulumiManifest};
use crate::backend::{
    checkpoint, Checkpoint, DigestSalt, PassphraseKey, StackOutputsRead, StackState, StateFiles, UpFingerprint,
    UpstreamOutputs,
};
use crate::provider::{Project, ProjectPath, Provider};

/// A stack as the backend holds it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StackFacts {
    /// `None` when the backend holds no such stack.
    pub resources: Option<usize>,
    /// When its newest update record was written.
    pub last_update: Option<std::time::SystemTime>,
}

impl StackFacts {
    /// `12 resources`, `empty (destroyed, or never updated)`, `not in the backend`.
    pub(crate) fn describe(&self) -> String {
        match self.resources {
            None => "not in the backend".into(),
            Some(0) => "empty (destroyed, or never updated)".into(),
            Some(count) => crate::text::counted(count, "resource"),
        }
    }

    pub(crate) fn is_deployed(&self) -> bool {
        self.resources.is_some_and(|count| count > 0)
    }
}

/// What every read of a run's stacks needs.
pub(crate) struct BackendStacks {
    pub provider: Provider,
    pub stack: String,
    pub environment: ChildEnvironment,
    pub backend: Backend,
    /// Opened once per run: one client per store.
    files: OnceLock<Result<Arc<dyn StateFiles>, StateReadError>>,
}

impl BackendStacks {
    pub(crate) fn new(provider: Provider, stack: String, environment: ChildEnvironment, backend: Backend) -> Self {
        Self { provider, stack, environment, backend, files: OnceLock::new() }
    }

    pub(crate) fn files(&self) -> Result<&Arc<dyn StateFiles>, StateReadError> {
        self.files.get_or_init(|| self.backend.state_files(&self.environment)).as_ref().map_err(Clone::clone)
    }

    /// The shared stack file's encryption salt: the same in every checkout of the stack.
    fn salt(&self, stack_config_file: &Path) -> DigestSalt {
        let text = std::fs::read_to_string(stack_config_file).unwrap_or_default();
        let salt = serde_norway::from_str::<serde_norway::Value>(&text)
            .ok()
            .and_then(|file| file.get("encryptionsalt").and_then(serde_norway::Value::as_str).map(str::to_string));
        DigestSalt::new(salt.unwrap_or_else(|| format!("runner {}", self.stack)).into_bytes())
    }

    pub(crate) fn passphrase(&self) -> Option<String> {
        if let Some(passphrase) = self.environment.vars().get("PULUMI_CONFIG_PASSPHRASE") {
            return Some(passphrase.clone());
        }
        let file = self.environment.get("PULUMI_CONFIG_PASSPHRASE_FILE")?;
        std::fs::read_to_string(file).ok().map(|text| text.trim_end_matches(['\n', '\r']).to_string())
    }

    fn stack_name(&self, project: &Project) -> Option<String> {
        PulumiManifest::load(&self.provider.dir_of(project)).ok().map(|manifest| manifest.name)
    }

    /// The checkpoint of `project`'s stack; `None` when it cannot be read or is not there.
    pub(crate) fn checkpoint(&self, project: &Project) -> Option<Checkpoint> {
        self.checkpoint_of(&self.stack_name(project)?).ok().flatten()
    }

    /// The checkpoint of the stack of the Pulumi project named `name`; `None` when there is none.
    pub(crate) fn checkpoint_of(&self, name: &str) -> Result<Option<Checkpoint>, StateReadError> {
        let files = self.files()?;
        StackState::new(files.as_ref(), name, &self.stack)
            .checkpoint()
            .map_err(|missing| StateReadError::Unreadable(missing.to_string()))
    }

    /// What the backend holds of `project`'s stack now, read for every verdict on its health.
    pub(crate) fn facts(&self, project: &Project) -> Result<StackFacts, StateReadError> {
        let files = self.files()?;
        let name = self.stack_name(project).ok_or(StateReadError::NoManifest)?;
        let state = StackState::new(files.as_ref(), &name, &self.stack);
        let unreadable =
            |err: &dyn std::error::Error| StateReadError::Unreadable(crate::error::ErrorChain(err).to_string());
        let checkpoint = state.checkpoint().map_err(|missing| unreadable(&missing))?;
        let history = state.history().map_err(|err| unreadable(&err))?;
        let last_update = history.first().map(|newest| {
            std::time::UNIX_EPOCH + std::time::Duration::from_nanos(newest.nanos.min(u64::MAX as u128) as u64)
        });
        Ok(StackFacts { resources: checkpoint.map(|checkpoint| checkpoint.resource_count()), last_update })
    }

    /// The outputs of the stack of the Pulumi project named `name`, secrets in clear, and the
    /// names of the secret ones; why not when the backend or a secret cannot be read here (Pulumi
    /// Cloud, a KMS secrets provider, no passphrase): `pulumi stack output` reads them then.
    pub(crate) fn outputs_of(&self, name: &str) -> Result<StackOutputsRead, StateReadError> {
        let Some(checkpoint) = self.checkpoint_of(name)? else {
            return Ok(StackOutputsRead::default());
        };
        let outputs = checkpoint.stack_outputs().unwrap_or_default();
        let key = self.key_of(&checkpoint);
        checkpoint::plain_outputs(&outputs, key.as_ref()).ok_or(StateReadError::SealedSecret)
    }

    /// The key that opens a checkpoint's secrets, when its provider is the passphrase and the
    /// run has the right one.
    pub(crate) fn key_of(&self, checkpoint: &Checkpoint) -> Option<PassphraseKey> {
        PassphraseKey::open(checkpoint.passphrase_salt()?, &self.passphrase()?).ok()
    }

    /// What `project`'s `up` would be made with now, as the message the update keeps: `pulumi`
    /// and the shared stack file are inputs too.
    pub(crate) fn fingerprint(
        &self,
        project: &Project,
        upstream: &[ProjectPath],
        reads: Option<&BTreeSet<String>>,
        (pulumi, stack_config_file): (&Path, &Path),
    ) -> Option<String> {
        let salt = self.salt(stack_config_file);
        let mut entry = serde_json::to_value(project).ok()?;
        if let Some(entry) = entry.as_object_mut() {
            // Where in the provider file it was written is no input of the program.
            entry.remove("origin");
            entry.remove("dependency_origins");
        }
        let plugins = self
            .environment
            .get("PULUMI_HOME")
            .map(PathBuf::from)
            .or_else(|| self.environment.get("HOME").map(|home| PathBuf::from(home).join(".pulumi")))
            .map(|home| home.join("plugins"));
        let folder = self.provider.dir_of(project);
        let stack_files = [stack_config_file.to_path_buf()];
        let entry = entry.to_string();
        let inputs = ProjectInputs {
            folder: &folder,
            stack_files: &stack_files,
            environment: &self.environment,
            pulumi,
            entry: entry.as_bytes(),
            plugins: plugins.as_deref(),
        };
        let inputs = input_digest(&salt, &inputs)?;
        let mut read = Vec::new();
        for path in upstream {
            let checkpoint = self.checkpoint(self.provider.project(path)?)?;
            let outputs = checkpoint.stack_outputs()?;
            read.push((path.as_str(), outputs, self.key_of(&checkpoint)));
        }
        let upstream: Vec<UpstreamOutputs<'_>> = read
            .iter()
            .map(|(project, outputs, key)| UpstreamOutputs { project, outputs, key: key.as_ref() })
            .collect();
        Some(UpFingerprint::of(&salt, &inputs, &upstream, reads).message())
    }

    /// The fingerprint `project`'s last `up` kept, when the backend proves its stack is as that
    /// `up` left it; otherwise which proof is missing.
    pub(crate) fn deployed(&self, project: &Project) -> Result<String, StateReadError> {
        let files = self.files()?;
        let name = self.stack_name(project).ok_or(StateReadError::NoManifest)?;
        StackState::new(files.as_ref(), &name, &self.stack)
            .last_up()
            .map(|found| found.message())
            .map_err(|missing| StateReadError::Unreadable(missing.to_string()))
    }
}
