use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use super::{gather_configuration, LoadedProvider, StackCheck};
use crate::cli::{ReportTarget, RunSettings, Settings};
use crate::config::add_stack_config_values;
use crate::error::{Result, UserError};
use crate::execute::{Cancellation, EventSender, ExecutionEvent, Executor, ProjectResult, RunInfo};
use crate::exit_status::ExitStatus;
use crate::graph::NodeIndex;
use crate::history::{HistoryRecorder, RunStore, StackLock};
use crate::plan::{closure, ExecutionPlan, Operation};
use crate::provider::ProjectPath;
use crate::pulumi::{Backend, ChildEnvironment, PulumiJob, PulumiJobContext, PulumiManifest};
use crate::report::{self, LogFiles, PlainReporter, Reporter, RunSummary, TerminalReporter};
use crate::secrets::SecretMask;

/// Enough to absorb bursts of output without letting a flood grow memory.
const EVENT_BUFFER: usize = 1024;

/// `runner up|preview|refresh|destroy`: check everything, then run the plan and report.
pub fn run(settings: &Settings, run: &RunSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &run.stack.provider)?;
    let check = StackCheck::run(settings, &run.stack, &loaded.provider)?;
    for warning in &check.warnings {
        eprintln!("warning: {}: {}", warning.location, warning.message);
    }
    let mut environment = ChildEnvironment::build(std::env::vars(), &run.stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let store = RunStore::new(&settings.root.state_dir());
    let selected = select_projects(run, &loaded, &store)?;
    let pending = gather_configuration(settings, run, &loaded, &check, &environment, &backend, &selected)?;
    let pulumi = find_pulumi(&environment)?;
    let plan = ExecutionPlan::new(&loaded.graph, run.operation, &selected);
    if !run.targets.is_empty() && plan.len() != 1 {
        return Err(UserError::Usage(format!(
            "`--target` applies to one project, but {} are selected: add `--only PROJECT`",
            plan.len()
        )));
    }
    if run.operation == Operation::Destroy && !run.yes {
        confirm_destroy(run, plan.len())?;
    }
    let command_line =
        format!("runner {} --provider {} --stack {}", run.operation, loaded.provider.name, run.stack.stack);
    let lock = StackLock::acquire(&settings.root.state_dir(), &run.stack.stack, &command_line, run.wait)?;
    if let Some(stale) = &lock.replaced_stale {
        eprintln!("warning: took over the lock of a runner that is gone ({})", stale.describe());
    }
    for abandoned in store.settle_abandoned(&loaded.provider.name, &run.stack.stack) {
        eprintln!(
            "warning: run `{}` ({} on stack `{}`) was interrupted before it finished; `runner {} --resume` continues it",
            abandoned.run_id, abandoned.operation, abandoned.stack, abandoned.operation
        );
    }
    let mask = SecretMask::new(environment.secret_values());
    // Variables that feed declared secrets are secret whatever their names.
    let secret_variables =
        loaded.provider.config.iter().filter(|key| key.secret).filter_map(|key| key.default_env.clone()).chain(
            loaded.provider.projects.iter().flat_map(|p| p.secrets.iter().filter_map(|s| s.default_env.clone())),
        );
    for name in secret_variables {
        if let Some(value) = environment.get(&name) {
            mask.add(value);
        }
    }
    if let Some(passphrase) = pending.passphrase {
        mask.add(&passphrase);
        environment.set("PULUMI_CONFIG_PASSPHRASE", passphrase);
    }
    if let Some(dir) = backend.local_dir() {
        std::fs::create_dir_all(dir)
            .map_err(|err| UserError::Unwritable { path: dir.to_path_buf(), reason: err.to_string() })?;
    }
    if !pending.config_values.is_empty() {
        add_stack_config_values(check.config.path(), check.config.text(), &pending.config_values)?;
    }
    for (secret_store, key, value) in &pending.secrets {
        mask.add(value);
        secret_store.store(&pulumi, &environment, &backend, key, value).map_err(|err| mask_error(err, &mask))?;
    }

    let run_id = new_run_id();
    let log_dir = settings.root.state_dir().join("logs").join(&run_id);
    std::fs::create_dir_all(&log_dir)
        .map_err(|err| UserError::Unwritable { path: log_dir.clone(), reason: err.to_string() })?;
    let graph = Arc::new(loaded.graph.clone());
    let info = RunInfo {
        run_id,
        provider: loaded.provider.name.clone(),
        stack: run.stack.stack.clone(),
        operation: run.operation,
        projects: plan.order.iter().map(|&node| graph.project(node).path.clone()).collect(),
        parallelism: run.parallelism,
        log_dir: log_dir.clone(),
        started: SystemTime::now(),
    };
    let job = PulumiJob::new(PulumiJobContext {
        pulumi,
        provider: loaded.provider.clone(),
        graph: Arc::clone(&graph),
        stack: run.stack.stack.clone(),
        operation: run.operation,
        environment,
        backend,
        stack_config_file: settings.root.stack_config_file(&run.stack.stack),
        log_dir: log_dir.clone(),
        mask: mask.clone(),
        state_dir: settings.root.state_dir(),
        targets: run.targets.clone(),
    });
    let mut reporters: Vec<Box<dyn Reporter>> =
        vec![Box::new(LogFiles::new(log_dir)), Box::new(HistoryRecorder::new(store))];
    if settings.style.interactive_terminal {
        reporters.push(Box::new(TerminalReporter::new(run.verbose, settings.style.color)));
    } else {
        reporters.push(Box::new(PlainReporter::new(run.verbose)));
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| UserError::Internal(format!("cannot start the async runtime: {err}")))?;
    let backend_for_locks = job.backend().clone();
    let summary = runtime.block_on(async move {
        let (events, receiver) = EventSender::channel(EVENT_BUFFER);
        let dispatcher = tokio::spawn(report::dispatch_events(receiver, reporters, mask));
        let cancellation = Cancellation::new();
        let signals = tokio::spawn(forward_signals(cancellation.clone(), events.clone()));
        events.send(ExecutionEvent::RunStarted(info)).await;
        let executor = Executor::new(graph, plan, job, run.parallelism, run.fail_fast);
        executor.run(events, cancellation).await;
        signals.abort();
        dispatcher.await.unwrap_or_default()
    });
    report_stack_locks(&loaded, &backend_for_locks, &run.stack.stack, &summary);
    drop(lock);
    finish(run, &summary)
}

/// Everything, a `--only/--from/--exclude` part of the graph, or what the last run left undone.
fn select_projects(run: &RunSettings, loaded: &LoadedProvider, store: &RunStore) -> Result<BTreeSet<NodeIndex>> {
    if !run.resume {
        return run.selection.resolve(&loaded.graph);
    }
    let last = store
        .runs_of(&loaded.provider.name, &run.stack.stack)
        .into_iter()
        .rev()
        .find(|record| record.operation == run.operation.as_str());
    let (unfinished, resumed): (Vec<NodeIndex>, String) = match last {
        Some(last) => (
            last.unfinished().into_iter().filter_map(|path| loaded.graph.node_of(&ProjectPath::new(path))).collect(),
            format!("run `{}`", last.run_id),
        ),
        // This copy has no record: another machine sharing the backend may have run it.
        None => match super::backend_resume::unfinished_in_backend(run, loaded) {
            Some(unfinished) => (unfinished, "the stack history in the backend".to_string()),
            None => {
                return Err(UserError::Usage(format!(
                    "nothing to resume: no `{}` run of stack `{}` is recorded",
                    run.operation, run.stack.stack
                )))
            }
        },
    };
    // What waited on an unfinished project must run again too: dependents, or for destroy, dependencies.
    let graph = &loaded.graph;
    let selected = if run.operation.is_reversed() {
        closure(graph, unfinished, |node| graph.dependencies(node))
    } else {
        closure(graph, unfinished, |node| graph.dependents(node))
    };
    eprintln!("resuming {resumed}: {} of {} projects left to run", selected.len(), graph.len());
    Ok(selected)
}

/// After an interrupted or failed run, a stack may still hold Pulumi's lock. On a file backend
/// the lock files say so; elsewhere, name the command for every project that was stopped.
fn report_stack_locks(loaded: &LoadedProvider, backend: &Backend, stack: &str, summary: &RunSummary) {
    for report in &summary.reports {
        if !matches!(report.result, ProjectResult::Cancelled | ProjectResult::Failed) || report.started.is_none() {
            continue;
        }
        let dir = loaded.provider.project_dir(&report.project);
        let Ok(manifest) = PulumiManifest::load(&dir) else { continue };
        let locked = if backend.is_local() {
            !backend.lock_files(&manifest.name, stack).is_empty()
        } else {
            report.result == ProjectResult::Cancelled
        };
        if locked {
            eprintln!(
                "warning: stack `{0}` may still be locked; in `{1}` run: pulumi cancel --stack {0} --yes",
                backend.qualified_stack(&manifest.name, stack),
                dir.display()
            );
        }
    }
}

fn mask_error(err: UserError, mask: &SecretMask) -> UserError {
    match err {
        UserError::Internal(message) => UserError::Internal(mask.apply(&message)),
        other => other,
    }
}

fn finish(run: &RunSettings, summary: &RunSummary) -> Result<ExitStatus> {
    let failures = summary.failures();
    if !failures.is_empty() {
        eprint!("{failures}");
    }
    print!("{}", summary.table());
    for target in &run.reports {
        match target {
            ReportTarget::Json(path) => report::write_json_report(summary, path)?,
            ReportTarget::Junit(path) => report::write_junit_report(summary, path)?,
        }
    }
    Ok(if summary.interrupted {
        ExitStatus::Interrupted
    } else if summary.all_succeeded() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// First Ctrl-C or SIGTERM: cancel gracefully. Second: kill.
async fn forward_signals(cancellation: Cancellation, events: EventSender) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut interrupt), Ok(mut terminate)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    else {
        return;
    };
    loop {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        // Tell the user before the executor reacts, so the explanation precedes its effects.
        let kill = cancellation.level() >= crate::execute::CancelLevel::Graceful;
        events.send(ExecutionEvent::Interrupting { kill }).await;
        cancellation.escalate_next();
    }
}

fn confirm_destroy(run: &RunSettings, projects: usize) -> Result<()> {
    if !run.interactive {
        return Err(UserError::ConfirmationRequired { operation: "destroy".into() });
    }
    let confirmed = dialoguer::Confirm::new()
        .with_prompt(format!("Destroy every resource of {projects} projects in stack `{}`?", run.stack.stack))
        .default(false)
        .interact()
        .map_err(|err| UserError::Usage(format!("cannot read the answer: {err}")))?;
    if confirmed {
        Ok(())
    } else {
        Err(UserError::Usage("destroy cancelled: nothing was changed".into()))
    }
}

fn find_pulumi(environment: &ChildEnvironment) -> Result<PathBuf> {
    let path = environment.get("PATH").map(str::to_string).unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    which::which_in("pulumi", Some(path), cwd).map_err(|_| UserError::ProgramMissing {
        program: "pulumi".into(),
        hint: "run `scripts/install-pulumi.sh` and put the folder it prints on PATH".into(),
    })
}

/// Sortable and unique enough for one machine: UTC time plus the process id.
fn new_run_id() -> String {
    let now = time::OffsetDateTime::now_utc();
    let stamp = now
        .format(&time::macros::format_description!("[year][month][day]T[hour][minute][second]Z"))
        .unwrap_or_else(|_| "run".into());
    format!("{stamp}-{}", std::process::id())
}
