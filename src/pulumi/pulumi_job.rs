use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Mutex;

use super::{Backend, ChildEnvironment, ExitState, OperationProgress, ProcessOutcome, PulumiManifest, PulumiProcess};
use crate::execute::{
    Cancellation, EventSender, ExecutionEvent, FailureDetail, ProjectJob, ProjectReport, ProjectResult,
};
use crate::graph::{NodeIndex, ProjectGraph};
use crate::hooks;
use crate::plan::Operation;
use crate::provider::{HookSpec, Project, ProjectPath, Provider};
use crate::secrets::SecretMask;

/// What every project of a run shares.
pub struct PulumiJobContext {
    pub pulumi: PathBuf,
    pub provider: Provider,
    pub graph: Arc<ProjectGraph>,
    pub stack: String,
    pub operation: Operation,
    pub environment: ChildEnvironment,
    pub backend: Backend,
    /// `config/pulumi/Pulumi.<stack>.yaml`, shared by every project.
    pub stack_config_file: PathBuf,
    /// Where event logs go: `.runner/logs/<run-id>/`.
    pub log_dir: PathBuf,
    pub mask: SecretMask,
    /// `.runner/`, for the run history prerequisites are checked against.
    pub state_dir: PathBuf,
    /// `--target` URNs from the command line (a single-project run).
    pub targets: Vec<String>,
}

/// Runs one project with the real `pulumi` CLI, the way the Automation API would, minus its waste:
/// no `stack select`, one process per operation, outputs read only when a hook needs them.
#[derive(Clone)]
pub struct PulumiJob {
    context: Arc<PulumiJobContext>,
    /// `stack init` writes the shared config file (the encryption salt); one at a time.
    stack_creation: Arc<Mutex<()>>,
    /// One lock per prerequisite, so projects sharing it run it once.
    prerequisite_gates: Arc<std::sync::Mutex<HashMap<ProjectPath, Arc<Mutex<()>>>>>,
    /// When each project last succeeded with an `up` in this run.
    prerequisites_done: Arc<std::sync::Mutex<HashMap<ProjectPath, SystemTime>>>,
}

impl PulumiJob {
    pub fn new(context: PulumiJobContext) -> Self {
        Self {
            context: Arc::new(context),
            stack_creation: Arc::new(Mutex::new(())),
            prerequisite_gates: Arc::default(),
            prerequisites_done: Arc::default(),
        }
    }

    pub fn backend(&self) -> &Backend {
        &self.context.backend
    }
}

impl ProjectJob for PulumiJob {
    fn run(
        &self,
        node: NodeIndex,
        events: EventSender,
        cancellation: Cancellation,
    ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send + 'static>> {
        let job = self.clone();
        Box::pin(async move {
            let operation = job.context.operation;
            let mut report = job.run_project(node, operation, events, cancellation.clone()).await;
            // A step that fails after the runner asked everything to stop failed because of the stop.
            if report.result == ProjectResult::Failed && cancellation.level() >= crate::execute::CancelLevel::Graceful {
                report.result = ProjectResult::Cancelled;
                report.reason = Some("cancelled while running".into());
            }
            report
        })
    }
}

/// The failure Pulumi reports when the stack was never created.
const NO_STACK: &str = "no stack named";

impl PulumiJob {
    /// Boxed: a prerequisite runs through here too, from inside another project's run.
    fn run_project(
        self,
        node: NodeIndex,
        operation: Operation,
        events: EventSender,
        cancellation: Cancellation,
    ) -> Pin<Box<dyn Future<Output = ProjectReport> + Send + 'static>> {
        Box::pin(async move { self.run_project_inner(node, operation, events, cancellation).await })
    }

    async fn run_project_inner(
        self,
        node: NodeIndex,
        operation: Operation,
        events: EventSender,
        cancellation: Cancellation,
    ) -> ProjectReport {
        let context = &self.context;
        let project = context.graph.project(node).clone();
        let started = SystemTime::now();
        let clock = Instant::now();
        events.send(ExecutionEvent::ProjectStarted { project: project.path.clone(), attempt: 1, at: started }).await;
        let as_prerequisite = operation != context.operation;
        let finish = |result: ProjectResult,
                      progress: &OperationProgress,
                      reason: Option<String>,
                      failure: Option<FailureDetail>| ProjectReport {
            project: project.path.clone(),
            result,
            started: Some(started),
            duration: clock.elapsed(),
            changes: progress.summary.unwrap_or_default(),
            reason,
            failure,
            attempts: 1,
            retried: Vec::new(),
            operation: as_prerequisite.then_some(operation),
        };
        for prerequisite in &project.prerequisites {
            if let Err(message) = self.ensure_prerequisite(&project, prerequisite, &events, &cancellation).await {
                return finish(
                    ProjectResult::Failed,
                    &OperationProgress::default(),
                    None,
                    Some(simple_failure(message)),
                );
            }
        }
        let dir = context.provider.dir_of(&project);
        let manifest = match PulumiManifest::load(&dir) {
            Ok(manifest) => manifest,
            Err(message) => {
                return finish(
                    ProjectResult::Failed,
                    &OperationProgress::default(),
                    None,
                    Some(simple_failure(message)),
                )
            }
        };
        let stack = context.backend.qualified_stack(&manifest.name, &context.stack);
        let config_file = self.config_file_for(&manifest).filter(|_| !context.provider.keeps_own_stack_file(&project));
        let exists = context.backend.stack_exists(&manifest.name, &context.stack);

        if exists == Some(false) {
            if matches!(operation, Operation::Refresh | Operation::Destroy) {
                let reason = format!("stack `{stack}` does not exist; nothing to {operation}");
                return finish(ProjectResult::Succeeded, &OperationProgress::default(), Some(reason), None);
            }
            if let Err(failure) =
                self.create_stack(&project, &dir, &stack, config_file.as_ref(), &events, &cancellation).await
            {
                return finish(ProjectResult::Failed, &OperationProgress::default(), None, Some(failure));
            }
        }

        let mut outcome =
            self.run_operation(&project, operation, &dir, &stack, config_file.as_ref(), &events, &cancellation).await;
        if exists.is_none()
            && !outcome.exit.success()
            && outcome.output_mentions(NO_STACK)
            && operation != Operation::Destroy
        {
            if let Err(failure) =
                self.create_stack(&project, &dir, &stack, config_file.as_ref(), &events, &cancellation).await
            {
                return finish(ProjectResult::Failed, &outcome.progress, None, Some(failure));
            }
            outcome = self
                .run_operation(&project, operation, &dir, &stack, config_file.as_ref(), &events, &cancellation)
                .await;
        }

        let policy = project.retry.clone().unwrap_or_default();
        let mut attempt = 1;
        let mut retried: Vec<String> = Vec::new();
        while !outcome.exit.success() && !outcome.cancelled && attempt < policy.attempts {
            let failure = self.failure_detail(&project, &outcome);
            let text =
                format!("{}\n{}\n{}", failure.summary, failure.diagnostics.join("\n"), failure.log_tail.join("\n"));
            if !policy.should_retry(&text) {
                break;
            }
            attempt += 1;
            let delay = policy.delay_before(attempt);
            retried.push(failure.summary.clone());
            let message = format!(
                "attempt {} failed ({}); retrying in {}",
                attempt - 1,
                failure.summary,
                humantime::format_duration(delay)
            );
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            let mut stop = cancellation.subscribe();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stop.wait_for(|level| *level >= crate::execute::CancelLevel::Graceful) => break,
            }
            events
                .send(ExecutionEvent::ProjectStarted { project: project.path.clone(), attempt, at: SystemTime::now() })
                .await;
            outcome = self
                .run_operation(&project, operation, &dir, &stack, config_file.as_ref(), &events, &cancellation)
                .await;
        }
        let counted = |mut report: ProjectReport| {
            report.attempts = attempt;
            report.retried = retried.clone();
            report
        };

        if outcome.cancelled && !outcome.exit.success() {
            return counted(finish(
                ProjectResult::Cancelled,
                &outcome.progress,
                Some("cancelled while running".into()),
                Some(self.failure_detail(&project, &outcome)),
            ));
        }
        if !outcome.exit.success() {
            return counted(finish(
                ProjectResult::Failed,
                &outcome.progress,
                None,
                Some(self.failure_detail(&project, &outcome)),
            ));
        }
        if operation == Operation::Up && !as_prerequisite && !project.on_success.is_empty() {
            if let Err(message) =
                self.run_hooks(&project, &dir, &stack, outcome.progress.secret_outputs.as_deref(), &events).await
            {
                return counted(finish(ProjectResult::Failed, &outcome.progress, None, Some(simple_failure(message))));
            }
        }
        if operation == Operation::Up && !as_prerequisite {
            for gate in &project.ready {
                events
                    .send(ExecutionEvent::ProjectNote {
                        project: project.path.clone(),
                        message: format!("waiting until ready: {}", gate.describe()),
                    })
                    .await;
                let outcome_of_gate =
                    hooks::wait_until_ready(gate, &dir, context.environment.vars(), &cancellation).await;
                if !outcome_of_gate.passed {
                    let message = format!(
                        "not ready: {} did not pass within {} ({} attempts in {}); last attempt: {}",
                        gate.describe(),
                        humantime::format_duration(gate.timeout),
                        outcome_of_gate.attempts,
                        humantime::format_duration(Duration::from_millis(outcome_of_gate.elapsed.as_millis() as u64)),
                        outcome_of_gate.last_attempt
                    );
                    return counted(finish(
                        ProjectResult::Failed,
                        &outcome.progress,
                        None,
                        Some(simple_failure(message)),
                    ));
                }
                events
                    .send(ExecutionEvent::ProjectNote {
                        project: project.path.clone(),
                        message: format!(
                            "ready: {} passed after {} attempts",
                            gate.describe(),
                            outcome_of_gate.attempts
                        ),
                    })
                    .await;
            }
        }
        if operation == Operation::Up {
            if let Ok(mut done) = self.prerequisites_done.lock() {
                done.insert(project.path.clone(), SystemTime::now());
            }
        }
        counted(finish(ProjectResult::Succeeded, &outcome.progress, None, None))
    }

    /// Runs `prerequisite` first (as an `up`) unless it succeeded within its window, by this run
    /// or an earlier one according to the history. One at a time per prerequisite.
    async fn ensure_prerequisite(
        &self,
        project: &Project,
        prerequisite: &crate::provider::Prerequisite,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Result<(), String> {
        let gate = {
            let mut gates = self.prerequisite_gates.lock().map_err(|_| "internal error: poisoned lock".to_string())?;
            Arc::clone(gates.entry(prerequisite.project.clone()).or_default())
        };
        let _one_at_a_time = gate.lock().await;
        let window = prerequisite.succeeded_within;
        let in_this_run = self.prerequisites_done.lock().ok().and_then(|done| done.get(&prerequisite.project).copied());
        let last = in_this_run.or_else(|| self.last_successful_up(&prerequisite.project));
        let age = last.and_then(|at| at.elapsed().ok());
        if let Some(age) = age.filter(|age| *age <= window) {
            let message = format!(
                "prerequisite `{}` succeeded {} ago, within {}",
                prerequisite.project,
                humantime::format_duration(Duration::from_secs(age.as_secs())),
                humantime::format_duration(window)
            );
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
            return Ok(());
        }
        let message = format!(
            "prerequisite `{}` has not succeeded within {}: running it first",
            prerequisite.project,
            humantime::format_duration(window)
        );
        events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message }).await;
        let node = self
            .context
            .graph
            .node_of(&prerequisite.project)
            .ok_or_else(|| format!("unknown prerequisite `{}`", prerequisite.project))?;
        let report = self.clone().run_project(node, Operation::Up, events.clone(), cancellation.clone()).await;
        let result = report.result;
        let summary = report.failure.as_ref().map(|failure| failure.summary.clone()).unwrap_or_default();
        events.send(ExecutionEvent::ProjectFinished(report)).await;
        if result == ProjectResult::Succeeded {
            if let Ok(mut done) = self.prerequisites_done.lock() {
                done.insert(prerequisite.project.clone(), SystemTime::now());
            }
            Ok(())
        } else {
            Err(format!("prerequisite `{}` {}: {summary}", prerequisite.project, result.as_str()))
        }
    }

    /// When `project` last succeeded with an `up` on this stack, according to the run history.
    fn last_successful_up(&self, project: &crate::provider::ProjectPath) -> Option<SystemTime> {
        let store = crate::history::RunStore::new(&self.context.state_dir);
        store
            .runs_of(&self.context.provider.name, &self.context.stack)
            .iter()
            .flat_map(|run| run.projects.iter().map(move |record| (run, record)))
            .filter(|(run, record)| {
                record.project == project.as_str()
                    && record.result == "succeeded"
                    && record.operation.as_deref().unwrap_or(&run.operation) == "up"
            })
            .filter_map(|(_, record)| record.ended)
            .map(|ended| std::time::UNIX_EPOCH + Duration::from_secs_f64(ended.max(0.0)))
            .max()
    }

    /// `--config-file` unless the project's `Pulumi.yaml` already points at the shared folder.
    fn config_file_for(&self, manifest: &PulumiManifest) -> Option<PathBuf> {
        let shared_dir = self.context.stack_config_file.parent().map(crate::config::normalize_path);
        match (&manifest.config_dir, shared_dir) {
            (Some(own), Some(shared)) if *own == shared => None,
            _ => Some(self.context.stack_config_file.clone()),
        }
    }

    fn event_log_path(&self, project: &Project) -> PathBuf {
        self.context.log_dir.join(format!("{}.events.jsonl", project.path.as_str()))
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_operation(
        &self,
        project: &Project,
        operation: Operation,
        dir: &std::path::Path,
        stack: &str,
        config_file: Option<&PathBuf>,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> ProcessOutcome {
        let event_log = self.event_log_path(project);
        if let Some(parent) = event_log.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::remove_file(&event_log);
        let mut args: Vec<String> = vec![
            operation.as_str().into(),
            "--stack".into(),
            stack.into(),
            "--non-interactive".into(),
            "--color".into(),
            "never".into(),
        ];
        if operation.mutates() {
            args.extend(["--yes".into(), "--skip-preview".into()]);
        }
        args.extend(["--event-log".into(), event_log.display().to_string()]);
        if let Some(file) = config_file {
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
        let outcome = PulumiProcess {
            program: &self.context.pulumi,
            args,
            cwd: dir,
            env: self.context.environment.vars(),
            event_log: Some(event_log.clone()),
            project: &project.path,
        }
        .run(events, cancellation)
        .await;
        // Pulumi writes the event log itself: mask it too before it stays under `.runner/`.
        mask_file(&event_log, &self.context.mask);
        outcome
    }

    async fn create_stack(
        &self,
        project: &Project,
        dir: &std::path::Path,
        stack: &str,
        config_file: Option<&PathBuf>,
        events: &EventSender,
        cancellation: &Cancellation,
    ) -> Result<(), FailureDetail> {
        let _guard = self.stack_creation.lock().await;
        events
            .send(ExecutionEvent::ProjectNote {
                project: project.path.clone(),
                message: format!("creating stack `{stack}`"),
            })
            .await;
        // `stack init` has no `--config-file`: the encryption salt goes to the project's own stack
        // file unless `Pulumi.yaml` points its config at the shared folder (MARA's layout).
        let args: Vec<String> =
            vec!["stack".into(), "init".into(), stack.into(), "--non-interactive".into(), "--no-select".into()];
        let outcome = PulumiProcess {
            program: &self.context.pulumi,
            args,
            cwd: dir,
            env: self.context.environment.vars(),
            event_log: None,
            project: &project.path,
        }
        .run(events, cancellation)
        .await;
        if outcome.exit.success() || outcome.output_mentions("already exists") {
            if let Some(shared) = config_file {
                adopt_encryption_salt(&dir.join(format!("Pulumi.{}.yaml", self.context.stack)), shared);
            }
            Ok(())
        } else {
            let mut detail = self.failure_detail(project, &outcome);
            detail.summary = format!("`pulumi stack init {stack}` failed with {}", outcome.exit.describe());
            Err(detail)
        }
    }

    /// Reads the outputs once (with secrets, masked from then on) and runs each hook in order.
    async fn run_hooks(
        &self,
        project: &Project,
        dir: &std::path::Path,
        stack: &str,
        secret_outputs: Option<&[String]>,
        events: &EventSender,
    ) -> Result<(), String> {
        let outputs = self.read_outputs(dir, stack).await?;
        // Mask what Pulumi says is secret; when the event log did not say, mask every output.
        match secret_outputs {
            Some(names) => {
                let secret: serde_json::Map<String, serde_json::Value> = outputs
                    .iter()
                    .filter(|(name, _)| names.contains(name))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                self.context.mask.add_json_strings(&secret);
            }
            None => self.context.mask.add_json_strings(&outputs),
        }
        for hook in &project.on_success {
            events.send(ExecutionEvent::ProjectNote { project: project.path.clone(), message: hook.describe() }).await;
            match hook {
                HookSpec::Kubeconfig { output } => {
                    let value = outputs.get(output).ok_or_else(|| {
                        format!("stack output `{output}` does not exist; the kubeconfig hook needs it")
                    })?;
                    let kubeconfig =
                        hooks::decode_kubeconfig_output(value).map_err(|err| format!("kubeconfig hook: {err}"))?;
                    let env = self.context.environment.clone();
                    let target = hooks::kubeconfig_target(&|key: &str| env.get(key).map(str::to_string))
                        .map_err(|err| format!("kubeconfig hook: {err}"))?;
                    let shown = target.display().to_string();
                    let context = tokio::task::spawn_blocking(move || hooks::install_kubeconfig(&target, &kubeconfig))
                        .await
                        .map_err(|err| format!("kubeconfig hook: {err}"))?
                        .map_err(|err| format!("kubeconfig hook: {err}"))?;
                    events
                        .send(ExecutionEvent::ProjectNote {
                            project: project.path.clone(),
                            message: format!("kubeconfig context `{context}` installed in `{shown}`"),
                        })
                        .await;
                }
                HookSpec::Command { argv, timeout } => {
                    hooks::run_command_hook(argv, *timeout, dir, self.context.environment.vars(), &outputs)
                        .await
                        .map_err(|err| format!("on_success command: {err}"))?;
                }
            }
        }
        Ok(())
    }

    async fn read_outputs(
        &self,
        dir: &std::path::Path,
        stack: &str,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let output = tokio::process::Command::new(&self.context.pulumi)
            .args(["stack", "output", "--json", "--show-secrets", "--non-interactive", "--stack", stack])
            .current_dir(dir)
            .env_clear()
            .envs(self.context.environment.vars())
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map_err(|err| format!("cannot run `pulumi stack output`: {err}"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("`pulumi stack output` failed: {}", self.context.mask.apply(stderr.trim())));
        }
        let outputs: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&output.stdout)
            .map_err(|err| format!("`pulumi stack output --json` printed no JSON object: {err}"))?;
        Ok(outputs)
    }

    fn failure_detail(&self, project: &Project, outcome: &ProcessOutcome) -> FailureDetail {
        // Pulumi's own words first: the event log's error diagnostics, else the last `error:` line
        // it printed (errors before the engine starts, like a held lock, never reach the event log).
        let printed_error = outcome.output_tail.iter().rev().find_map(|line| line.trim_start().strip_prefix("error: "));
        let summary = match (&outcome.exit, outcome.progress.errors.first(), printed_error) {
            (ExitState::SpawnFailed(reason), _, _) => format!("could not start `pulumi`: {reason}"),
            (_, Some(first), _) => first.lines().next().unwrap_or(first).to_string(),
            (_, None, Some(printed)) => printed.to_string(),
            (exit, None, None) => format!("`pulumi {}` ended with {}", self.context.operation, exit.describe()),
        };
        FailureDetail {
            summary,
            diagnostics: outcome.progress.errors.clone(),
            log_tail: outcome.output_tail.clone(),
            log_path: Some(self.context.log_dir.join(format!("{}.log", project.path.as_str()))),
        }
    }
}

/// Moves the salt `stack init` wrote next to `Pulumi.yaml` into the shared stack file when that
/// has none yet, so the first parallel operations do not each write a salt of their own, and
/// removes the file it came from when the salt was all it held.
fn adopt_encryption_salt(project_file: &std::path::Path, shared: &std::path::Path) {
    let Ok(own) = std::fs::read_to_string(project_file) else { return };
    let Some(salt_line) = own.lines().find(|line| line.starts_with("encryptionsalt:")) else { return };
    let shared_text = std::fs::read_to_string(shared).unwrap_or_default();
    if !shared_text.lines().any(|line| line.starts_with("encryptionsalt:")) {
        let merged = format!("{salt_line}\n{shared_text}");
        if crate::config::write_atomically(shared, merged.as_bytes()).is_err() {
            return;
        }
    }
    if own.lines().filter(|line| !line.trim().is_empty()).count() == 1 {
        let _ = std::fs::remove_file(project_file);
    }
}

/// Rewrites a file line by line with every known secret masked (atomically, bounded memory).
fn mask_file(path: &std::path::Path, mask: &SecretMask) {
    use std::io::{BufRead, Write};
    if mask.is_empty() {
        return;
    }
    let (Ok(file), Some(dir)) = (std::fs::File::open(path), path.parent()) else { return };
    let Ok(mut masked) = tempfile::NamedTempFile::new_in(dir) else { return };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        let text = String::from_utf8_lossy(&line);
        if masked.write_all(mask.apply(&text).as_bytes()).is_err() {
            return;
        }
        line.clear();
    }
    let _ = masked.persist(path);
}

fn simple_failure(message: String) -> FailureDetail {
    FailureDetail { summary: message, ..Default::default() }
}
