//! The fingerprints of `up`s, computed from the project's inputs and its upstream outputs as the
//! backend holds them, and read back from the backend for a skip's proof. No `pulumi` process.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use super::{input_digest, Backend, ChildEnvironment, ProjectInputs, PulumiManifest};
use crate::backend::{Checkpoint, DigestSalt, PassphraseKey, StackState, StateFiles, UpFingerprint, UpstreamOutputs};
use crate::provider::{Project, ProjectPath, Provider};

/// What every fingerprint of a run reads.
pub struct UpFingerprints {
    pub provider: Provider,
    pub stack: String,
    pub environment: ChildEnvironment,
    pub pulumi: PathBuf,
    pub stack_config_file: PathBuf,
    pub backend: Backend,
    /// Opened once per run: one client per store.
    files: OnceLock<Result<Arc<dyn StateFiles>, String>>,
}

impl UpFingerprints {
    pub fn new(
        provider: Provider,
        stack: String,
        environment: ChildEnvironment,
        pulumi: PathBuf,
        stack_config_file: PathBuf,
        backend: Backend,
    ) -> Self {
        Self { provider, stack, environment, pulumi, stack_config_file, backend, files: OnceLock::new() }
    }

    pub fn files(&self) -> Result<&Arc<dyn StateFiles>, String> {
        self.files.get_or_init(|| self.backend.state_files(&self.environment)).as_ref().map_err(Clone::clone)
    }

    /// The shared stack file's encryption salt: the same in every checkout of the stack.
    fn salt(&self) -> DigestSalt {
        let text = std::fs::read_to_string(&self.stack_config_file).unwrap_or_default();
        let salt = serde_yaml::from_str::<serde_yaml::Value>(&text)
            .ok()
            .and_then(|file| file.get("encryptionsalt").and_then(serde_yaml::Value::as_str).map(str::to_string));
        DigestSalt::new(salt.unwrap_or_else(|| format!("runner {}", self.stack)).into_bytes())
    }

    pub fn passphrase(&self) -> Option<String> {
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
    pub fn checkpoint(&self, project: &Project) -> Option<Checkpoint> {
        let files = self.files().ok()?;
        let name = self.stack_name(project)?;
        StackState::new(files.as_ref(), &name, &self.stack).checkpoint().ok().flatten()
    }

    /// The key that opens a checkpoint's secrets, when its provider is the passphrase and the
    /// run has the right one.
    pub fn key_of(&self, checkpoint: &Checkpoint) -> Option<PassphraseKey> {
        PassphraseKey::open(checkpoint.passphrase_salt()?, &self.passphrase()?).ok()
    }

    /// What `project`'s `up` would be made with now, as the message the update keeps.
    pub fn fingerprint(
        &self,
        project: &Project,
        upstream: &[ProjectPath],
        reads: Option<&BTreeSet<String>>,
    ) -> Option<String> {
        let salt = self.salt();
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
        let stack_files = [self.stack_config_file.clone()];
        let entry = entry.to_string();
        let inputs = ProjectInputs {
            folder: &folder,
            stack_files: &stack_files,
            environment: &self.environment,
            pulumi: &self.pulumi,
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
    pub fn deployed(&self, project: &Project) -> Result<String, String> {
        let files = self.files()?;
        let name = self.stack_name(project).ok_or_else(|| "its `Pulumi.yaml` cannot be read".to_string())?;
        StackState::new(files.as_ref(), &name, &self.stack)
            .last_up()
            .map(|found| found.message())
            .map_err(|missing| missing.to_string())
    }
}
