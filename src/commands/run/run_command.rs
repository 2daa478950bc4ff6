use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use super::run_context::RunContext;
use crate::cli::{RunSettings, Settings};
use crate::commands::run::outcome::{finish_run, report_stack_locks};
use crate::commands::run::run_secret_mask::{run_secret_mask, StoredConfigSecrets};
use crate::commands::run::signals::RunSignals;
use crate::commands::run::stack_takeover::take_stack;
use crate::commands::shared::passphrase_check::check_passphrase;
use crate::commands::{preflight_and_gather, LoadedProvider, StackCheck};
use crate::config::{add_stack_config_values, StackConfigEdit};
use crate::error::{Result, UserError};
use crate::execute::{
    Cancellation, EventSender, ExecutionEvent, Executor, LifecycleContext, ProjectLifecycle, RunInfo,
};
use crate::exit_status::ExitStatus;
use crate::graph::NodeIndex;
use crate::history::{HistoryRecorder, ResumeBasis, RunStore};
use crate::plan::{closure, ExecutionPlan, Operation};
use crate::provider::ProjectPath;
use crate::pulumi::{Backend, ChildEnvironment, PulumiCli, PulumiCliContext};
use crate::report::{self, LogFiles, PlainReporter, Reporter, RunSummary, TerminalReporter};
use crate::secrets::SecretMask;

/// Enough to absorb bursts of output without letting a flood grow memory.
const EVENT_BUFFER: usize = 1024;

/// `runner up|preview|refresh|destroy`: check everything, then run the plan and report.
pub(crate) fn run(settings: &Settings, run: &RunSettings) -> Result<ExitStatus> {
    let loaded = LoadedProvider::load(settings, &run.stack.provider)?;
    let inputs = crate::commands::InputFiles::of(&settings.root, Some(&loaded.provider));
    for report in &run.reports {
        inputs.refuse_overwrite("--report", &report.path())?;
    }
    let check = StackCheck::run(settings, &run.stack, &loaded.provider)?;
    for warning in &check.warnings {
        crate::text::stderr_line!("warning: {}: {}", warning.location, warning.message);
    }
    let mut environment = ChildEnvironment::build(std::env::vars(), &run.stack.environment, &settings.root);
    let backend = Backend::from_environment(&environment);
    let store = RunStore::new(&settings.root.state_dir());
    let (selected, seeds) = select_projects(settings, run, &loaded, &store)?;
    let stored_secrets = StoredConfigSecrets::start(stack_files(settings, run, &loaded, &backend), &environment);
    let context = RunContext {
        settings,
        run,
        loaded: &loaded,
        check: &check,
        environment: &environment,
        backend: &backend,
        selected: &selected,
    };
    let pending = preflight_and_gather(&context)?;
    // Once, before anything runs: not two projects failing mid-run and three skipped.
    let typed = pending.passphrase.as_deref();
    if backend.uses_passphrase() {
        check_passphrase(&run.stack.stack, check.config.path(), &environment, typed)?;
    }
    if !pending.config_values.is_empty() {
        // Refused before the lock, the history and the backend are touched, not halfway through.
        StackConfigEdit::new(check.config.path(), check.config.text().unwrap_or_default())
            .add(&pending.config_values)?;
    }
    let pulumi = crate::commands::shared::pulumi_location::find_pulumi(&environment)?;
    let plan =
        crate::commands::planned(settings, &loaded, run.operation, &selected, Some(&run.stack.stack), &run.pools)?;
    if !run.targets.is_empty() && plan.len() != 1 {
        return Err(UserError::Usage(format!(
            "`--target` applies to one project, but {} are selected: add `--only PROJECT`",
            plan.len()
        )));
    }
    if run.operation == Operation::Destroy && run.targets.is_empty() {
        crate::commands::run::destroy_guard::refuse_stranding_destroy(run, &loaded, &selected, &environment, &backend)?;
    }
    if run.operation == Operation::Destroy
        && !run.yes
        && !crate::commands::run::destroy_confirmation::confirm_destroy(settings, run, &loaded, &plan)?
    {
        crate::text::stderr_line!("nothing destroyed");
        return Ok(ExitStatus::Success);
    }
    let keep = history_keep(&environment)?;
    let lock = take_stack(settings, run, &loaded, &store, &command_line(run, &loaded))?;
    let recovered_locks = crate::commands::run::lock_recovery::recover_pulumi_locks(
        &loaded,
        &run.stack.stack,
        &environment,
        &backend,
        &selected,
    )?;
    // This run is one of the `keep`.
    store.prune(&loaded.provider.name, &run.stack.stack, keep - 1);
    let mask = run_secret_mask(&environment, &loaded.provider, pending.passphrase.as_deref());
    stored_secrets.add_to(&mask, pending.passphrase.as_deref());
    if let Some(passphrase) = pending.passphrase {
        environment.set("PULUMI_CONFIG_PASSPHRASE", passphrase);
    }
    if let Some(dir) = backend.local_dir() {
        std::fs::create_dir_all(dir).map_err(|err| UserError::Unwritable { path: dir.to_path_buf(), source: err })?;
    }
    if !pending.config_values.is_empty() {
        // Read again under the stack lock: the file may have changed since the checks read it.
        let current = std::fs::read_to_string(check.config.path()).ok();
        add_stack_config_values(check.config.path(), current.as_deref(), &pending.config_values)?;
    }
    for (secret_store, key, value) in &pending.secrets {
        mask.add(value);
        secret_store.store(&pulumi, &environment, &backend, key, value).map_err(|err| mask_error(err, &mask))?;
    }
    let history = store.success_index(&run.stack.stack).of_stack(&loaded.provider.name, &run.stack.stack);
    let cli = PulumiCliContext {
        pulumi,
        provider: loaded.provider.clone(),
        stack: run.stack.stack.clone(),
        environment,
        backend: backend.clone(),
        stack_config_file: settings.root.stack_config_file(&run.stack.stack),
        log_dir: PathBuf::new(),
        mask,
        history,
        targets: run.targets.clone(),
    };
    // Outputs files (plain secrets) a killed runner's hooks left behind.
    crate::hooks::HookTempDir::remove_leftovers();
    let outputs = (cli.pulumi.clone(), cli.environment.clone(), cli.mask.clone());
    let unchanged = crate::commands::run::unchanged_skip::unchanged_rule(settings, run, &loaded, &selected, &seeds)?;
    let summary = execute_plan(settings, run, &loaded, plan, cli, store.clone(), (recovered_locks, unchanged))?;
    report_stack_locks(&loaded, &backend, &run.stack.stack, &summary);
    drop(lock);
    let table_on_stdout = !(settings.style.interactive_terminal && settings.style.stdout_terminal);
    let status = finish_run(run, &summary, table_on_stdout)?;
    let status = crate::commands::run::history_failure::with_unwritten(status, &summary.unwritten);
    let changes = crate::commands::run::changes::report_changes(run, &summary, &store)?;
    if run.operation == Operation::Up {
        let (pulumi, environment, mask) = &outputs;
        let reader = crate::commands::shared::stack_outputs::OutputReader {
            pulumi,
            provider: &loaded.provider,
            stack: &run.stack.stack,
            environment,
            backend: &backend,
            show_secrets: false,
            mask,
        };
        crate::commands::run::changes::print_shown_outputs(&reader, &summary);
    }
    let resume = format!("{} --resume", command_line(run, &loaded));
    crate::commands::run::outcome::print_footer(settings, &summary, &resume);
    crate::commands::run::kubeconfig_record::after_run(settings, run, &loaded, &summary);
    crate::commands::run::changes::say_stacks_holding_nothing(run, &summary);
    if status == ExitStatus::Success && crate::commands::run::changes::changes_fail_the_run(run, changes.as_ref()) {
        return Ok(ExitStatus::ChangesFound);
    }
    Ok(status)
}

/// Run records kept per stack when none is configured.
const DEFAULT_HISTORY_KEEP: usize = 100;

/// `RUNNER_HISTORY_KEEP` (environment file or process environment): how many runs of a stack
/// the history keeps; older records are deleted when a run starts.
fn history_keep(environment: &ChildEnvironment) -> Result<usize> {
    match environment.get("RUNNER_HISTORY_KEEP") {
        None => Ok(DEFAULT_HISTORY_KEEP),
        Some(text) => text.trim().parse::<usize>().ok().filter(|keep| *keep >= 1).ok_or_else(|| {
            UserError::Usage(format!("`RUNNER_HISTORY_KEEP` must be a whole number of runs, at least 1, not `{text}`"))
        }),
    }
}

/// Runs the plan on an async runtime, every project through its lifecycle over `pulumi`, with
/// the reporters consuming the events; returns what they summed up.
fn execute_plan(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    plan: ExecutionPlan,
    mut cli: PulumiCliContext,
    store: RunStore,
    (recovered_locks, unchanged): (Vec<String>, crate::execute::UnchangedRule),
) -> Result<RunSummary> {
    let run_id = new_run_id();
    let log_dir = settings.root.state_dir().join("logs").join(&run_id);
    std::fs::create_dir_all(&log_dir).map_err(|err| UserError::Unwritable { path: log_dir.clone(), source: err })?;
    cli.log_dir.clone_from(&log_dir);
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
        recovered_locks,
    };
    let mask = cli.mask.clone();
    let context = LifecycleContext {
        graph: Arc::clone(&graph),
        operation: run.operation,
        environment: cli.environment.vars().clone(),
        mask: mask.clone(),
        planned: info.projects.clone(),
        unchanged,
    };
    let lifecycle = ProjectLifecycle::new(PulumiCli::new(cli), context);
    let recorder = HistoryRecorder::new(store);
    let mut reporters: Vec<Box<dyn Reporter>> = vec![Box::new(LogFiles::new(log_dir)), Box::new(recorder)];
    let waits_for = plan
        .steps
        .iter()
        .map(|step| {
            let blockers = step.blockers().map(|node| graph.project(node).path.to_string()).collect();
            (graph.project(step.node).path.to_string(), blockers)
        })
        .collect();
    reporters.push(Box::new(crate::history::TimelineRecorder::new(settings.root.state_dir(), waits_for)));
    if settings.style.interactive_terminal {
        reporters.push(Box::new(TerminalReporter::new(run.verbose, settings.style.color)));
    } else {
        reporters.push(Box::new(PlainReporter::new(run.verbose)));
    }

    let eta = report::EtaTracker::new(
        plan.clone(),
        plan.steps.iter().map(|step| graph.project(step.node).path.clone()).collect(),
        run.parallelism,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| UserError::CannotStart { what: "the async runtime", source })?;
    let quiet_keyboard = settings.style.interactive_terminal;
    let summary = runtime.block_on(async move {
        let (events, receiver) = EventSender::channel(EVENT_BUFFER);
        // Reporters write files (logs, history, reports): they get a thread of their own, off
        // the async workers that drive processes.
        let handle = tokio::runtime::Handle::current();
        let dispatcher = tokio::task::spawn_blocking(move || {
            handle.block_on(report::dispatch_events(receiver, reporters, mask, eta))
        });
        // The process's own: children started outside the lifecycle listen to it too.
        let cancellation = Cancellation::process();
        // Signals are caught before keyboard echo goes off, so every Ctrl-C that can find echo
        // off ends in a run that restores it.
        let listeners = RunSignals::listen();
        let _keyboard = quiet_keyboard.then(crate::prompt::QuietKeyboard::start);
        let signals = listeners.map(|signals| tokio::spawn(signals.forward(cancellation.clone(), events.clone())));
        events.send(ExecutionEvent::RunStarted(info)).await;
        let executor = Executor::new(graph, plan, lifecycle, run.parallelism, run.fail_fast);
        executor.run(events, cancellation).await;
        if let Some(signals) = signals {
            signals.abort();
        }
        dispatcher.await.unwrap_or_else(|err| {
            let fault = match err.try_into_panic() {
                Ok(payload) => report::panic_message(payload.as_ref()),
                Err(err) => err.to_string(),
            };
            RunSummary { faults: vec![format!("the event dispatcher failed: {fault}")], ..RunSummary::default() }
        })
    });
    Ok(summary)
}

/// Everything, a `--only/--from/--exclude` part of the graph, or what the last run left undone;
/// and the part of it that is there for itself, not only as a dependent.
fn select_projects(
    settings: &Settings,
    run: &RunSettings,
    loaded: &LoadedProvider,
    store: &RunStore,
) -> Result<(BTreeSet<NodeIndex>, BTreeSet<NodeIndex>)> {
    if !run.resume {
        return crate::commands::select_with_seeds(settings, loaded, &run.selection, Some(&run.stack.stack));
    }
    let runs = store.runs_of(&loaded.provider.name, &run.stack.stack);
    // A project skipped because what it waits on failed is there only as a dependent.
    let mut waited: Vec<NodeIndex> = Vec::new();
    let (unfinished, resumed): (Vec<NodeIndex>, String) = match ResumeBasis::of(&runs, run.operation) {
        ResumeBasis::Continue(point) => {
            // The record is this copy's; the stacks may have moved on without it.
            crate::commands::run::backend_resume::check_resume_point(settings, run, loaded, &point)?;
            let unfinished = point.unfinished();
            let ids: Vec<String> = point.run_ids().iter().map(|id| format!("`{id}`")).collect();
            let nodes = unfinished.iter().filter_map(|path| loaded.graph.node_of(&ProjectPath::new(path))).collect();
            let latest = point.latest();
            let skipped = latest.iter().filter(|(_, state)| **state == crate::history::ProjectState::Skipped);
            waited = skipped.filter_map(|(path, _)| loaded.graph.node_of(&ProjectPath::new(path))).collect();
            (nodes, format!("run {}", ids.join(", ")))
        }
        ResumeBasis::Superseded { last, by } => {
            let ended =
                by.ended.map_or_else(|| "still unfinished".to_string(), |at| format!("ended {}", seconds_text(at)));
            return Err(UserError::ResumeSuperseded {
                resumed: format!("run `{}` ({}, started {})", last.run_id, last.operation, seconds_text(last.started)),
                changes: vec![format!("run `{}` ran `{}` on it ({ended})", by.run_id, by.operation)],
                command: crate::commands::run::backend_resume::plain_command(run, loaded),
            });
        }
        // This copy has no record: another machine sharing the backend may have run it.
        ResumeBasis::Nothing => {
            match crate::commands::run::backend_resume::unfinished_in_backend(settings, run, loaded)? {
                Some(unfinished) => (unfinished, "the stack history in the backend".to_string()),
                None => {
                    return Err(UserError::Usage(format!(
                        "nothing to resume: no `{}` run of stack `{}` is recorded",
                        run.operation, run.stack.stack
                    )))
                }
            }
        }
    };
    // What waited on an unfinished project must run again too: dependents, or for destroy, dependencies.
    let graph = &loaded.graph;
    let seeds: BTreeSet<NodeIndex> = unfinished.iter().copied().filter(|node| !waited.contains(node)).collect();
    let selected = if run.operation.is_reversed() {
        closure(graph, unfinished, |node| graph.dependencies(node))
    } else {
        closure(graph, unfinished, |node| graph.dependents(node))
    };
    crate::text::stderr_line!(
        "resuming {resumed}: {} of {} left to run",
        selected.len(),
        crate::text::counted(graph.len(), "project")
    );
    Ok((selected, seeds))
}

fn mask_error(err: UserError, mask: &SecretMask) -> UserError {
    match err {
        UserError::Internal(message) => UserError::Internal(mask.apply(&message)),
        other => other,
    }
}

/// `runner up --provider aws --stack dev`: how the lock names its holder, and the footer's
/// `--resume` command starts.
fn command_line(run: &RunSettings, loaded: &LoadedProvider) -> String {
    format!("runner {} --provider {} --stack {}", run.operation, loaded.provider.name, run.stack.stack)
}

/// Sortable and unique enough for one machine: UTC time plus the process id.
fn new_run_id() -> String {
    let now = time::OffsetDateTime::now_utc();
    let stamp = now
        .format(&time::macros::format_description!("[year][month][day]T[hour][minute][second]Z"))
        .unwrap_or_else(|_| "run".into());
    format!("{stamp}-{}", std::process::id())
}

/// The stack files whose `secure:` values a run's programs can read: the shared file, and the
/// secrets project's own when the provider names one.
fn stack_files(settings: &Settings, run: &RunSettings, loaded: &LoadedProvider, backend: &Backend) -> Vec<PathBuf> {
    let mut files = vec![settings.root.stack_config_file(&run.stack.stack)];
    if let Ok(Some(store)) =
        crate::pulumi::SecretStore::locate(&settings.root, &loaded.provider, &run.stack.stack, backend, true)
    {
        if !files.iter().any(|file| file == store.stack_file()) {
            files.push(store.stack_file().to_path_buf());
        }
    }
    files
}

/// A record's time (seconds since the epoch) as a person reads it.
fn seconds_text(seconds: f64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or_default();
    humantime::format_rfc3339_seconds(at).to_string()
}
