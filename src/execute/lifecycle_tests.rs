//! The lifecycle's steps over a scripted CLI: retries, prerequisites and stack creation.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::scripted_cli::{failure, ScriptedCli};
use super::*;
use crate::graph::{test_provider, ProjectGraph};
use crate::plan::{ExecutionPlan, Operation};
use crate::provider::{Phase, Prerequisite, ProjectPath, Provider, RetryPolicy};
use crate::secrets::SecretMask;

/// Runs the whole plan of `provider` for `operation`; returns the reports, the notes and the CLI.
async fn run(
    provider: Provider,
    operation: Operation,
    cli: ScriptedCli,
) -> (Vec<ProjectReport>, Vec<ProjectReport>, Vec<String>, Arc<ScriptedCli>) {
    let graph = Arc::new(ProjectGraph::build(&provider).unwrap());
    // As a selection does: projects that only run as prerequisites are not planned.
    let planned = (0..graph.len()).filter(|&node| !graph.project(node).only_as_prerequisite).collect();
    let plan = ExecutionPlan::new(&graph, operation, &planned);
    let context = LifecycleContext {
        graph: Arc::clone(&graph),
        operation,
        environment: Default::default(),
        mask: SecretMask::default(),
        planned: plan.order.iter().map(|&node| graph.project(node).path.clone()).collect(),
        unchanged: Default::default(),
    };
    let lifecycle = ProjectLifecycle::new(cli, context);
    let cli = Arc::clone(&lifecycle.cli);
    let (events, mut receiver) = EventSender::channel(256);
    let collect = tokio::spawn(async move {
        let (mut finished, mut notes) = (Vec::new(), Vec::new());
        while let Some(event) = receiver.recv().await {
            match event {
                ExecutionEvent::ProjectFinished(report) => finished.push(report),
                ExecutionEvent::ProjectNote { project, message } => notes.push(format!("{project}: {message}")),
                _ => {}
            }
        }
        (finished, notes)
    });
    let reports = Executor::new(graph, plan, lifecycle, 4, false).run(events, Cancellation::new()).await;
    let (finished, notes) = collect.await.unwrap();
    (reports, finished, notes, cli)
}

fn report<'a>(reports: &'a [ProjectReport], path: &str) -> &'a ProjectReport {
    reports.iter().find(|report| report.project.as_str() == path).unwrap()
}

fn retrying(provider: &mut Provider, path: &str, attempts: u32, on: &[&str]) {
    let project = provider.projects.iter_mut().find(|p| p.path.as_str() == path).unwrap();
    project.retry = Some(RetryPolicy {
        attempts,
        backoff: Duration::from_millis(1),
        on: crate::provider::RetryPatterns::compile(on.iter().copied()).unwrap(),
    });
}

fn requiring(provider: &mut Provider, path: &str, prerequisite: &str, within: Duration) {
    let project = provider.projects.iter_mut().find(|p| p.path.as_str() == path).unwrap();
    project.prerequisites.push(Prerequisite { project: ProjectPath::new(prerequisite), succeeded_within: within });
}

use Phase::Infrastructure as I;

#[tokio::test]
async fn a_retryable_failure_is_tried_again_until_it_passes() {
    let mut provider = test_provider(&[("a", I, &[])]);
    retrying(&mut provider, "a", 3, &["quota.*exceeded"]);
    let cli = ScriptedCli::default().script("a", vec![failure("quota 1 exceeded"), failure("quota 2 exceeded")]);
    let (reports, _, notes, cli) = run(provider, Operation::Up, cli).await;
    let a = report(&reports, "a");
    assert_eq!(a.result, ProjectResult::Succeeded);
    assert_eq!(a.attempts, 3);
    assert_eq!(a.retried, ["quota 1 exceeded", "quota 2 exceeded"]);
    assert_eq!(cli.calls(), ["up a", "up a", "up a"]);
    assert!(notes[0].starts_with("a: attempt 1 failed (quota 1 exceeded); retrying in"), "{notes:?}");
}

#[tokio::test]
async fn a_failure_no_pattern_names_is_not_retried() {
    let mut provider = test_provider(&[("a", I, &[])]);
    retrying(&mut provider, "a", 3, &["quota.*exceeded"]);
    let cli = ScriptedCli::default().script("a", vec![failure("TypeError: x is undefined")]);
    let (reports, _, _, cli) = run(provider, Operation::Up, cli).await;
    let a = report(&reports, "a");
    assert_eq!((a.result, a.attempts), (ProjectResult::Failed, 1));
    assert_eq!(a.failure.as_ref().unwrap().summary, "TypeError: x is undefined");
    assert_eq!(cli.calls(), ["up a"]);
}

#[tokio::test]
async fn retries_stop_at_the_policys_attempts() {
    let mut provider = test_provider(&[("a", I, &[])]);
    retrying(&mut provider, "a", 2, &[]);
    let locked = || failure("error: the stack is currently locked by 1 lock(s)");
    let cli = ScriptedCli::default().script("a", vec![locked(), locked(), locked()]);
    let (reports, _, _, cli) = run(provider, Operation::Up, cli).await;
    let a = report(&reports, "a");
    assert_eq!((a.result, a.attempts, a.retried.len()), (ProjectResult::Failed, 2, 1));
    assert_eq!(cli.calls(), ["up a", "recheck a", "up a"], "a locked stack's holder is read before the retry");
}

/// A locked stack is read again before the backoff: a holder that is gone (its lock removed)
/// means the retry starts now; a live holder is named and waited for.
#[tokio::test]
async fn a_locked_stack_rechecks_its_holder_instead_of_waiting_blind() {
    let locked = || failure("error: the stack is currently locked by 1 lock(s)");
    for (recheck, expected) in [
        (LockRecheck::Released("removed the lock left by pid 7, which is gone".into()), "which is gone); retrying now"),
        (LockRecheck::Held("held by `pulumi` pid 8 of `me@here`".into()), "pid 8 of `me@here`); retrying in 1ms"),
    ] {
        let mut provider = test_provider(&[("a", I, &[])]);
        retrying(&mut provider, "a", 2, &[]);
        let cli = ScriptedCli { lock_recheck: Some(recheck), ..Default::default() }.script("a", vec![locked()]);
        let (reports, _, notes, cli) = run(provider, Operation::Up, cli).await;
        assert_eq!(report(&reports, "a").result, ProjectResult::Succeeded);
        assert_eq!(cli.calls(), ["up a", "recheck a", "up a"]);
        assert!(notes.iter().any(|note| note.ends_with(expected)), "{notes:?}");
    }
}

#[tokio::test]
async fn a_stale_prerequisite_runs_first_as_an_up_once_for_everyone() {
    let mut provider = test_provider(&[("creds", I, &[]), ("b", I, &[]), ("c", I, &[])]);
    provider.projects[0].only_as_prerequisite = true;
    requiring(&mut provider, "b", "creds", Duration::from_secs(60));
    requiring(&mut provider, "c", "creds", Duration::from_secs(60));
    let old = SystemTime::now() - Duration::from_secs(3600);
    let cli = ScriptedCli { history: [("creds".to_string(), old)].into(), ..Default::default() };
    let (reports, finished, notes, cli) = run(provider, Operation::Refresh, cli).await;
    assert_eq!(report(&reports, "b").result, ProjectResult::Succeeded);
    assert_eq!(report(&reports, "c").result, ProjectResult::Succeeded);
    let mut calls = cli.calls();
    assert_eq!(calls.remove(0), "up creds", "the prerequisite runs before anything that needs it");
    calls.sort();
    assert_eq!(calls, ["refresh b", "refresh c"]);
    let creds: Vec<_> = finished.iter().filter(|r| r.project.as_str() == "creds").collect();
    assert_eq!(creds.len(), 1);
    assert_eq!(creds[0].operation, Some(Operation::Up));
    assert!(notes.iter().any(|n| n.contains("prerequisite `creds` has not succeeded within 1m: running it first")));
    assert!(notes.iter().any(|n| n.contains("prerequisite `creds` succeeded 0s ago, within 1m")), "{notes:?}");
}

#[tokio::test]
async fn a_prerequisite_that_succeeded_within_its_window_is_not_run() {
    let mut provider = test_provider(&[("creds", I, &[]), ("b", I, &[])]);
    provider.projects[0].only_as_prerequisite = true;
    requiring(&mut provider, "b", "creds", Duration::from_secs(600));
    let recent = SystemTime::now() - Duration::from_secs(30);
    let cli = ScriptedCli { history: [("creds".to_string(), recent)].into(), ..Default::default() };
    let (reports, _, notes, cli) = run(provider, Operation::Refresh, cli).await;
    assert_eq!(report(&reports, "b").result, ProjectResult::Succeeded);
    assert_eq!(cli.calls(), ["refresh b"]);
    assert!(notes.iter().any(|n| n.starts_with("b: prerequisite `creds` succeeded 30s ago")), "{notes:?}");
}

#[tokio::test]
async fn a_failed_prerequisite_fails_the_project_before_its_operation() {
    let mut provider = test_provider(&[("creds", I, &[]), ("b", I, &[])]);
    provider.projects[0].only_as_prerequisite = true;
    requiring(&mut provider, "b", "creds", Duration::from_secs(60));
    let cli = ScriptedCli::default().script("creds", vec![failure("token revoked")]);
    let (reports, _, _, cli) = run(provider, Operation::Refresh, cli).await;
    let b = report(&reports, "b");
    assert_eq!(b.result, ProjectResult::Failed);
    assert_eq!(b.failure.as_ref().unwrap().summary, "prerequisite `creds` failed: token revoked");
    assert_eq!(cli.calls(), ["up creds"]);
}

#[tokio::test]
async fn a_missing_stack_is_created_for_up_and_reported_not_deployed_by_refresh() {
    let provider = test_provider(&[("a", I, &[])]);
    let cli = ScriptedCli { exists: Some(false), ..Default::default() };
    let (_, _, _, cli) = run(provider.clone(), Operation::Up, cli).await;
    assert_eq!(cli.calls(), ["create a", "up a"]);
    let cli = ScriptedCli { exists: Some(false), ..Default::default() };
    let (reports, _, _, cli) = run(provider, Operation::Refresh, cli).await;
    assert!(cli.calls().is_empty());
    let a = report(&reports, "a");
    assert_eq!(a.result, ProjectResult::NotDeployed);
    assert_eq!(a.reason.as_deref(), Some("stack `dev-a` does not exist: never deployed, or removed"));
}

#[tokio::test]
async fn a_stack_the_backend_could_not_see_is_created_when_the_cli_says_it_is_missing() {
    let provider = test_provider(&[("a", I, &[])]);
    let missing = OperationOutcome { stack_missing: true, ..failure("no stack named 'dev' found") };
    let cli = ScriptedCli::default().script("a", vec![missing]);
    let (reports, _, _, cli) = run(provider, Operation::Up, cli).await;
    assert_eq!(report(&reports, "a").result, ProjectResult::Succeeded);
    assert_eq!(cli.calls(), ["up a", "create a", "up a"]);
}

/// Every shape where a planned project is also a prerequisite (of a project before it, after
/// it, or beside it; on its own stack or sharing one through `dir`), for every operation: no
/// stack is operated on twice at once, and a destroy never runs an `up` on a stack it removes.
#[tokio::test]
async fn a_stack_is_never_operated_on_twice_at_once_and_destroy_never_brings_one_back() {
    type Shape =
        (&'static str, &'static [(&'static str, &'static [&'static str])], Option<(&'static str, &'static str)>);
    let shapes: [Shape; 5] = [
        ("beside", &[("creds", &[]), ("app", &[]), ("web", &[])], None),
        ("after", &[("creds", &[]), ("app", &["creds"]), ("web", &["app"])], None),
        ("before", &[("app", &[]), ("creds", &["app"]), ("web", &[])], None),
        ("shared dir", &[("creds", &[]), ("app", &[]), ("web", &[])], Some(("app", "creds"))),
        ("own dir", &[("vault", &[]), ("creds", &[]), ("app", &[]), ("web", &["vault"])], Some(("creds", "vault"))),
    ];
    for (name, projects, shared) in shapes {
        for operation in [Operation::Up, Operation::Destroy, Operation::Refresh] {
            let spec: Vec<(&str, Phase, &[&str])> = projects.iter().map(|(path, deps)| (*path, I, *deps)).collect();
            let mut provider = test_provider(&spec);
            if let Some((project, dir)) = shared {
                provider.projects.iter_mut().find(|p| p.path.as_str() == project).unwrap().dir = Some(dir.into());
            }
            requiring(&mut provider, "app", "creds", Duration::from_secs(1));
            requiring(&mut provider, "web", "creds", Duration::from_secs(1));
            let (reports, _, notes, cli) = run(provider.clone(), operation, ScriptedCli::default()).await;
            let shape = format!("{name}, {operation}");
            assert!(cli.overlaps.lock().unwrap().is_empty(), "{shape}: {:?}", cli.overlaps.lock().unwrap());
            assert!(reports.iter().all(|r| r.result == ProjectResult::Succeeded), "{shape}: {reports:?}");
            if operation == Operation::Destroy {
                // Every `creds` here is planned: this destroy removes it.
                assert!(!cli.calls().iter().any(|call| call.starts_with("up ")), "{shape}: {:?}", cli.calls());
                assert!(notes.iter().any(|n| n.contains("not run: this destroy removes its stack")), "{shape}");
            }
        }
    }
}

#[tokio::test]
async fn destroy_refreshes_a_prerequisite_on_a_stack_it_removes_only_before_removing_it() {
    // `creds` runs on `vault`'s stack (a targeted credentials update, as MARA's seed does);
    // `vault` goes first (it depends on `app`), so `app`'s destroy comes after the stack is gone.
    let mut provider = test_provider(&[("creds", I, &[]), ("app", I, &[]), ("vault", I, &["app"])]);
    provider.projects[0].only_as_prerequisite = true;
    provider.projects[0].dir = Some("vault".into());
    requiring(&mut provider, "vault", "creds", Duration::ZERO);
    requiring(&mut provider, "app", "creds", Duration::ZERO);
    let (reports, _, notes, cli) = run(provider, Operation::Destroy, ScriptedCli::default()).await;
    assert!(reports.iter().all(|r| r.result == ProjectResult::Succeeded), "{reports:?}");
    assert_eq!(cli.calls(), ["up creds", "destroy vault", "destroy app"]);
    assert!(notes.iter().any(|n| n == "app: prerequisite `creds` not run: this destroy removes its stack (`vault`)"));
}

#[tokio::test]
async fn destroy_still_refreshes_a_prerequisite_it_does_not_remove() {
    let mut provider = test_provider(&[("creds", I, &[]), ("app", I, &[])]);
    provider.projects[0].only_as_prerequisite = true;
    requiring(&mut provider, "app", "creds", Duration::from_secs(1));
    let (reports, _, _, cli) = run(provider, Operation::Destroy, ScriptedCli::default()).await;
    assert_eq!(report(&reports, "app").result, ProjectResult::Succeeded);
    assert_eq!(cli.calls(), ["up creds", "destroy app"]);
}

#[tokio::test]
async fn refresh_and_drift_report_a_missing_stack_as_not_deployed_and_go_on() {
    let provider = test_provider(&[("a", I, &[]), ("b", I, &["a"])]);
    for operation in [Operation::Refresh, Operation::Drift] {
        // Known missing, or found missing only when the operation ran.
        let known = ScriptedCli { exists: Some(false), ..Default::default() };
        let missing = || OperationOutcome { stack_missing: true, ..failure("no stack named 'dev' found") };
        let found = ScriptedCli::default().script("a", vec![missing()]).script("b", vec![missing()]);
        for cli in [known, found] {
            let (reports, _, _, cli) = run(provider.clone(), operation, cli).await;
            assert_eq!(report(&reports, "a").result, ProjectResult::NotDeployed, "{operation}");
            assert_eq!(report(&reports, "b").result, ProjectResult::NotDeployed, "each stack answers for itself");
            assert!(!cli.calls().iter().any(|call| call.starts_with("create")), "{operation} creates no stack");
        }
    }
}
