use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tokio::sync::Mutex;

use super::{
    adopt_encryption_salt, failure_summary, mask_event_log, secret_output_names, Backend, BackendStacks,
    ChildEnvironment, ProcessOutcome, PulumiManifest, PulumiProcess,
};
use crate::cancel::{ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::execute::{
    Cancellation, EventSender, ExecutionEvent, FailureDetail, OperationOutcome, ProjectCli, ProjectCliError,
    StackOutputs, StackTarget,
};
use crate::history::StackSuccesses;
use crate::plan::Operation;
use crate::provider::{Project, ProjectPath, Provider};
use crate::secrets::SecretMask;

/// What every project of a run shares.
pub(crate) struct PulumiCliContext {
    pub pulumi: PathBuf,
    pub provider: Provider,
    pub stack: String,
    pub environment: ChildEnvironment,
    pub backend: Backend,
    /// `config/pulumi/Pulumi.<stack>.yaml`, shared by every project.
    pub stack_config_file: PathBuf,
    /// Where event logs go: `.runner/logs/<run-id>/`.
    pub log_dir: PathBuf,
    pub mask: SecretMask,
    /// When each project last succeeded before this run, for prerequisites.
    pub history: StackSuccesses,
    /// `--target` URNs from the command line (a single-project run).
    pub targets: Vec<String>,
}

/// The failure Pulumi reports when the stack was never created.
const NO_STACK: &str = "no stack named";

/// Drives the real `pulumi` CLI for the executor, the way the Automation API would, minus its
/// waste: no `stack select`, one process per operation, outputs read only when a hook needs them.
pub(crate) struct PulumiCli {
    context: PulumiCliContext,
    /// `stack init` writes the shared config file (the encryption salt); one at a time.
    stack_creation: Mutex<()>,
    /// `--config-file` per project folder, decided when its stack is located.
    config_files: std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// Event logs an operation of this run already wrote: a second operation of the project (a
    /// retry, a prerequisite) must not read the first one's events. The run's log folder is new,
    /// so any other event log cannot exist yet.
    event_logs_used: std::sync::Mutex<HashSet<PathBuf>>,
    /// The stacks as the backend holds them: fingerprints, proofs and outputs.
    stacks: std::sync::Arc<BackendStacks>,
}

impl PulumiCli {
    pub(crate) fn new(context: PulumiCliContext) -> Self {
        let stacks = std::sync::Arc::new(BackendStacks::new(
            context.provider.clone(),
            context.stack.clone(),
            context.environment.clone(),
            context.backend.clone(),
        ));
        Self {
            stacks,
            context,
            stack_creation: Mutex::new(()),
            config_files: std::sync::Mutex::default(),
            event_logs_used: std::sync::Mutex::default(),
        }
    }

    /// `--config-file` unless the project's `Pulumi.yaml` already points at the shared folder.
    fn config_file_for(&self, manifest: &PulumiManifest) -> Option<PathBuf> {
        let shared_dir = self.context.stack_config_file.parent().map(crate::config::normalize_path);
        match (&manifest.config_dir, shared_dir) {
            (Some(own), Some(shared)) if *own == shared => None,
            _ => Some(self.context.stack_config_file.clone()),
        }
    }

    fn config_file(&self, stack: &StackTarget) -> Option<PathBuf> {
        self.config_files
            .lock()
            .ok()
            .and_then(|files| files.get(&stack.dir).cloned())
            .unwrap_or_else(|| Some(self.context.stack_config_file.clone()))
    }

    fn event_log_path(&self, project: &Project) -> PathBuf {
        self.context.log_dir.join(format!("{}.events.jsonl", project.path.as_str()))
    }

    fn log_path(&self, project: &Project) -> PathBuf {
        self.context.log_dir.join(format!("{}.log", project.path.as_str()))
    }

    fn operation_args(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        fingerprint: Option<&str>,
        event_log: &Path,
    ) -> Vec<String> {
        let mut args: Vec<String> = operation.pulumi_command().iter().map(|part| part.to_string()).collect();
        args.extend([
            "--stack".into(),
            stack.name.clone(),
            "--non-interactive".into(),
            "--color".into(),
            "never".into(),
        ]);
        if operation.mutates() {
            args.extend(["--yes".into(), "--skip-preview".into()]);
        }
        // Kept in the backend with the update: what a later skip is proven from. A targeted `up`
        // updates part of the stack, so it proves nothing of the rest: no fingerprint.
        let targeted = !project.targets.is_empty() || !self.context.targets.is_empty();
        if let (Operation::Up, Some(fingerprint), false) = (operation, fingerprint, targeted) {
            args.extend(["--message".into(), fingerprint.to_string()]);
        }
        args.extend(["--event-log".into(), event_log.display().to_string()]);
        if let Some(file) = self.config_file(stack) {
            args.extend(["--config-file".into(), file.display().to_string()]);
        }
        for target in project.targets.iter().chain(&self.context.targets) {
            args.extend(["--target".into(), target.clone()]);
        }
        if project.target_dependents && !project.targets.is_empty() {
            args.push("--target-dependents".into());
        }
        if project.refresh && matches!(operation, Operation::Up | Operation::Preview) {
            args.push("--refresh".into());
        }
        args
    }

    /// A stack's outputs read from the backend's state, with no `pulumi` process; `None` where
    /// only `pulumi` can read them (Pulumi Cloud, a KMS secrets provider, no passphrase).
    async fn outputs_from_backend(&self, stack: &StackTarget) -> Option<crate::backend::StackOutputsRead> {
        let project = stack.name.rsplit('/').nth(1)?.to_string();
        let stacks = std::sync::Arc::clone(&self.stacks);
        tokio::task::spawn_blocking(move || stacks.outputs_of(&project)).await.ok()?.ok()
    }

    fn outcome(&self, project: &Project, operation: Operation, process: ProcessOutcome) -> OperationOutcome {
        let succeeded = process.exit.success();
        OperationOutcome {
            succeeded,
            cancelled: process.cancelled,
            stack_missing: !succeeded && process.output_mentions(NO_STACK),
            failure: (!succeeded).then(|| failure_summary(operation, &process, self.log_path(project))),
            progress: process.progress,
            mocked: Vec::new(),
        }
    }
}

impl ProjectCli for PulumiCli {
    async fn recheck_stack_lock(&self, project: &Project, _stack: &StackTarget) -> crate::execute::LockRecheck {
        let context = &self.context;
        let dir = context.provider.dir_of(project);
        super::lock_recheck::recheck_lock(
            dir,
            context.backend.clone(),
            context.environment.clone(),
            context.stack.clone(),
        )
        .await
    }

    async fn locate_stack(&self, project: &Project) -> Result<StackTarget, ProjectCliError> {
        let context = &self.context;
        let dir = context.provider.dir_of(project);
        let (backend, stack, folder) = (context.backend.clone(), context.stack.clone(), dir.clone());
        let stacks = std::sync::Arc::clone(&self.stacks);
        let project_for_facts = project.clone();
        let log_folder = self.event_log_path(project).parent().map(Path::to_path_buf);
        // Reads `Pulumi.yaml` and looks for the stack's state file: file system work. The
        // folder of the project's event log is made in the same trip to the blocking threads:
        // on a busy machine each trip costs the project's start a wait for a thread.
        let (manifest, exists, resources) = tokio::task::spawn_blocking(move || {
            if let Some(log_folder) = log_folder {
                let _ = std::fs::create_dir_all(log_folder);
            }
            let manifest = PulumiManifest::load(&folder).map_err(|err| ProjectCliError::Project(Box::new(err)))?;
            // Read from the backend's state wherever the runner can read it (S3, GCS, Azure Blob
            // too): whether the stack is there, and whether it holds anything.
            let (exists, resources) = match stacks.facts(&project_for_facts) {
                Ok(facts) => (Some(facts.resources.is_some()), facts.resources),
                Err(_) => (backend.stack_exists(&manifest.name, &stack), None),
            };
            Ok::<_, ProjectCliError>((manifest, exists, resources))
        })
        .await
        .map_err(|err| ProjectCliError::Internal(err.to_string()))??;
        if let Ok(mut files) = self.config_files.lock() {
            // A project that keeps its own stack file (MARA's secrets project) gets no shared one.
            let file = self.config_file_for(&manifest).filter(|_| !context.provider.keeps_own_stack_file(project));
            files.insert(dir.clone(), file);
        }
        Ok(StackTarget {
            name: context.backend.qualified_stack(&manifest.name, &context.stack),
            exists,
            resources,
            dir,
        })
    }

    async fn create_stack(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Result<(), FailureDetail> {
        if operation == Operation::Preview {
            let (provider, owned, backend, name) = (
                self.context.provider.clone(),
                project.clone(),
                self.context.backend.clone(),
                self.context.stack.clone(),
            );
            let mocked = tokio::task::spawn_blocking(move || {
                !super::mock_backend::missing_upstream(&provider, &owned, &backend, &name).is_empty()
            });
            // Previewed over mocks on a throwaway backend that holds this stack already.
            if mocked.await.unwrap_or(false) {
                return Ok(());
            }
        }
        let _guard = self.stack_creation.lock().await;
        let name = &stack.name;
        let message = format!("creating stack `{name}`");
        events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
        // `stack init` has no `--config-file`: the encryption salt goes to the project's own stack
        // file unless `Pulumi.yaml` points its config at the shared folder (MARA's layout).
        let args: Vec<String> =
            vec!["stack".into(), "init".into(), name.clone(), "--non-interactive".into(), "--no-select".into()];
        let outcome = PulumiProcess {
            program: &self.context.pulumi,
            args,
            cwd: &stack.dir,
            env: self.context.environment.vars(),
            event_log: None,
            project: &project.path,
            mask: Some(&self.context.mask),
            interrupt_grace: crate::cancel::INTERRUPT_GRACE,
        }
        .run(events, cancellation)
        .await;
        if outcome.exit.success() || outcome.output_mentions("already exists") {
            if let Some(shared) = self.config_file(stack) {
                let own = stack.dir.join(format!("Pulumi.{}.yaml", self.context.stack));
                let _ = tokio::task::spawn_blocking(move || adopt_encryption_salt(&own, &shared)).await;
            }
            Ok(())
        } else {
            let mut detail = failure_summary(Operation::Up, &outcome, self.log_path(project));
            detail.summary = format!("`pulumi stack init {name}` failed with {}", outcome.exit.describe());
            Err(detail)
        }
    }

    async fn run_operation(
        &self,
        project: &Project,
        stack: &StackTarget,
        operation: Operation,
        fingerprint: Option<&str>,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> OperationOutcome {
        let event_log = self.event_log_path(project);
        let first_use = self.event_logs_used.lock().map(|mut used| used.insert(event_log.clone())).unwrap_or(false);
        if !first_use {
            let stale = event_log.clone();
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(stale)).await;
        }
        let mocks = match super::mock_backend::mock_outputs(&self.context, project, operation).await {
            Ok(mocks) => mocks,
            Err(failure) => return OperationOutcome { failure: Some(failure), ..Default::default() },
        };
        let env = match &mocks {
            Some(mocks) => &mocks.environment,
            None => self.context.environment.vars(),
        };
        let process = PulumiProcess {
            program: &self.context.pulumi,
            args: self.operation_args(project, stack, operation, fingerprint, &event_log),
            cwd: &stack.dir,
            env,
            event_log: Some(event_log.clone()),
            project: &project.path,
            mask: Some(&self.context.mask),
            interrupt_grace: crate::cancel::INTERRUPT_GRACE,
        }
        .run(events, cancellation)
        .await;
        // Pulumi writes the event log itself: mask it too before it stays under `.runner/`.
        let mask = self.context.mask.clone();
        let masked = tokio::task::spawn_blocking(move || {
            mask_event_log(&event_log, &mask).map_err(|err| crate::error::ErrorChain(&err).to_string())
        })
        .await
        .unwrap_or_else(|err| Err(format!("masking the event log stopped: {err}")));
        if let Err(message) = masked {
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
        }
        let mut outcome = self.outcome(project, operation, process);
        outcome.mocked = mocks.map(|mocks| mocks.upstream).unwrap_or_default();
        outcome
    }

    async fn read_outputs(&self, stack: &StackTarget) -> Result<StackOutputs, ProjectCliError> {
        if let Some(read) = self.outputs_from_backend(stack).await {
            return Ok(read.values);
        }
        let output = ChildProcess::new(&self.context.pulumi)
            .args(["stack", "output", "--json", "--show-secrets", "--non-interactive", "--stack", &stack.name])
            .current_dir(&stack.dir)
            .env_clear()
            .envs(self.context.environment.vars())
            .timeout(QUERY_TIMEOUT)
            .output(&Cancellation::process())
            .await;
        if let ChildEnd::SpawnFailed(reason) = &output.end {
            return Err(ProjectCliError::NotStarted(reason.clone()));
        }
        if !output.success() {
            let stderr = match output.stderr_text().trim() {
                "" => output.end.describe(),
                text => text.to_string(),
            };
            return Err(ProjectCliError::Failed(format!(
                "`pulumi stack output` failed: {}",
                self.context.mask.apply(&stderr)
            )));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|source| ProjectCliError::NoJson { command: "pulumi stack output --json", source })
    }

    async fn secret_output_names(&self, stack: &StackTarget) -> Option<Vec<String>> {
        if let Some(read) = self.outputs_from_backend(stack).await {
            return Some(read.secret);
        }
        let env = self.context.environment.vars();
        secret_output_names(&self.context.pulumi, &stack.dir, &stack.name, env).await.ok()
    }

    async fn last_shared_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime> {
        if operation != Operation::Up {
            return None;
        }
        let (pulumi, environment) = (self.context.pulumi.clone(), self.context.environment.clone());
        let (provider, stack, project) = (self.context.provider.clone(), self.context.stack.clone(), project.clone());
        tokio::task::spawn_blocking(move || {
            super::stack_history::project_history(&pulumi, &environment, &provider, &project, &stack)?
                .last_successful_up()
        })
        .await
        .ok()
        .flatten()
    }

    async fn up_fingerprint(
        &self,
        project: &Project,
        upstream: &[ProjectPath],
        reads: Option<&std::collections::BTreeSet<String>>,
    ) -> Option<String> {
        let stacks = std::sync::Arc::clone(&self.stacks);
        let (project, upstream, reads) = (project.clone(), upstream.to_vec(), reads.cloned());
        let (pulumi, config) = (self.context.pulumi.clone(), self.context.stack_config_file.clone());
        tokio::task::spawn_blocking(move || stacks.fingerprint(&project, &upstream, reads.as_ref(), (&pulumi, &config)))
            .await
            .ok()
            .flatten()
    }

    async fn deployed_fingerprint(&self, project: &Project) -> Option<String> {
        let stacks = std::sync::Arc::clone(&self.stacks);
        let project = project.clone();
        tokio::task::spawn_blocking(move || stacks.deployed(&project).ok()).await.ok().flatten()
    }

    fn last_success(&self, project: &ProjectPath, operation: Operation) -> Option<SystemTime> {
        self.context.history.last_success(project, operation)
    }
}
