//! What each reporter makes of a run, pinned as snapshots: the plain lines, the final table, the
//! JSON and the JUnit reports, for a run that succeeds, one that fails and one that is cancelled.
//! Built from events directly, as the executor would send them: reporters never see processes.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{json_report::json_text, junit_report::junit_xml, run_footer, PlainReporter, Reporter, RunSummary};
use super::{terminal_reporter::progress_status, terminal_reporter::LIVE_TEMPLATE, TerminalReporter};
use crate::execute::{
    ExecutionEvent, FailureDetail, InstalledKubeconfig, OperationProgress, OutputStream, ProjectReport, ProjectResult,
    RunInfo,
};
use crate::plan::Operation;
use crate::provider::ProjectPath;

/// 2026-01-01T00:00:00Z: fixed, so reports compare; the filters below guard what still varies.
const START: u64 = 1_767_225_600;

fn at(milliseconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(START) + Duration::from_millis(milliseconds)
}

fn path(text: &str) -> ProjectPath {
    ProjectPath::new(text)
}

fn run_started(projects: &[&str]) -> ExecutionEvent {
    ExecutionEvent::RunStarted(RunInfo {
        run_id: "20260101T000000Z-4242".into(),
        provider: "aws".into(),
        stack: "dev".into(),
        operation: Operation::Up,
        projects: projects.iter().map(|p| path(p)).collect(),
        parallelism: 4,
        log_dir: PathBuf::from("/home/someone/mara/.runner/logs/20260101T000000Z-4242"),
        started: at(0),
        recovered_locks: Vec::new(),
    })
}

fn started(project: &str, attempt: u32, millis: u64) -> ExecutionEvent {
    ExecutionEvent::ProjectStarted { project: path(project), attempt, at: at(millis) }
}

/// A project that ran from `from` to `to` (milliseconds after the start of the run).
fn ran(project: &str, result: ProjectResult, from: u64, to: u64) -> ProjectReport {
    let mut report = ProjectReport::not_run(path(project), result, String::new());
    report.reason = None;
    report.started = Some(at(from));
    report.duration = Duration::from_millis(to - from);
    report.attempts = 1;
    report
}

fn finished(report: ProjectReport) -> ExecutionEvent {
    ExecutionEvent::ProjectFinished(report)
}

fn success_events() -> Vec<ExecutionEvent> {
    let mut vpc = ran("infrastructure/vpc", ProjectResult::Succeeded, 10, 42_310);
    vpc.changes.created = 12;
    vpc.changes.unchanged = 1;
    let mut cluster = ran("infrastructure/cluster", ProjectResult::Succeeded, 42_400, 163_900);
    cluster.changes.created = 3;
    cluster.changes.updated = 1;
    cluster.changes.unchanged = 20;
    cluster.attempts = 2;
    cluster.retried = vec!["error: the stack is currently locked by 1 lock(s)".into()];
    let mut app = ran("kubernetes/app", ProjectResult::Succeeded, 164_000, 171_250);
    app.changes.unchanged = 7;
    vec![
        run_started(&["infrastructure/vpc", "infrastructure/cluster", "kubernetes/app"]),
        started("infrastructure/vpc", 1, 10),
        ExecutionEvent::ProjectOutput {
            project: path("infrastructure/vpc"),
            stream: OutputStream::Stdout,
            line: "Updating (dev)".into(),
        },
        finished(vpc),
        started("infrastructure/cluster", 1, 42_400),
        ExecutionEvent::ProjectNote {
            project: path("infrastructure/cluster"),
            message: "attempt 1 failed (the stack is currently locked); retrying in 5s".into(),
        },
        started("infrastructure/cluster", 2, 47_400),
        ExecutionEvent::KubeconfigInstalled(InstalledKubeconfig {
            project: path("infrastructure/cluster"),
            context: "mara-dev".into(),
            file: PathBuf::from("/home/someone/.kube/config"),
            entries: Default::default(),
        }),
        finished(cluster),
        started("kubernetes/app", 1, 164_000),
        finished(app),
        ExecutionEvent::RunFinished { at: at(171_300), interrupted: false },
    ]
}

fn failure_events() -> Vec<ExecutionEvent> {
    let mut vpc = ran("infrastructure/vpc", ProjectResult::Failed, 10, 8_120);
    vpc.failure = Some(FailureDetail {
        summary: "error: creating EC2 VPC: VpcLimitExceeded: The maximum number of VPCs has been reached".into(),
        diagnostics: vec![
            "error: creating EC2 VPC: VpcLimitExceeded: The maximum number of VPCs has been reached".into(),
            "aws:ec2:Vpc (main):\n    error: 1 error occurred:\n    \t* creating EC2 VPC: VpcLimitExceeded <&> \"quoted\"".into(),
        ],
        log_tail: vec!["Updating (dev)".into(), "error: update failed".into()],
        log_path: Some(PathBuf::from(
            "/home/someone/mara/.runner/logs/20260101T000000Z-4242/infrastructure__vpc.log",
        )),
        hint: Some("the account's VPC quota is used up: delete an unused VPC or ask AWS for more".into()),
    });
    let registry = ran("infrastructure/registry", ProjectResult::Succeeded, 15, 3_500);
    let cluster = ProjectReport::not_run(
        path("infrastructure/cluster"),
        ProjectResult::Skipped,
        "dependency `infrastructure/vpc` failed".into(),
    );
    vec![
        run_started(&["infrastructure/vpc", "infrastructure/registry", "infrastructure/cluster"]),
        started("infrastructure/vpc", 1, 10),
        started("infrastructure/registry", 1, 15),
        finished(registry),
        finished(vpc),
        finished(cluster),
        ExecutionEvent::RunFinished { at: at(8_200), interrupted: false },
    ]
}

fn cancel_events() -> Vec<ExecutionEvent> {
    let mut vpc = ran("infrastructure/vpc", ProjectResult::Cancelled, 10, 5_000);
    vpc.reason = Some("cancelled while running".into());
    vpc.failure = Some(FailureDetail {
        summary: "`pulumi up` ended with exit code 255".into(),
        diagnostics: Vec::new(),
        log_tail: vec!["^C received; cancelling the current operation".into()],
        log_path: None,
        hint: None,
    });
    let cluster = ProjectReport::not_run(
        path("infrastructure/cluster"),
        ProjectResult::Cancelled,
        "not started: the run was interrupted".into(),
    );
    vec![
        run_started(&["infrastructure/vpc", "infrastructure/cluster"]),
        started("infrastructure/vpc", 1, 10),
        ExecutionEvent::Interrupting { kill: false },
        finished(cluster),
        ExecutionEvent::Interrupting { kill: true },
        finished(vpc),
        ExecutionEvent::RunFinished { at: at(5_100), interrupted: true },
    ]
}

/// A check of stacks that are not all there: `not deployed` is a result of its own.
fn not_deployed_events() -> Vec<ExecutionEvent> {
    let missing = |project: &str, from: u64| {
        let mut report = ran(project, ProjectResult::NotDeployed, from, from + 40);
        report.reason = Some(format!(
            "stack `organization/{}/dev` does not exist: never deployed, or removed",
            project.rsplit('/').next().unwrap()
        ));
        report
    };
    vec![
        run_started(&["infrastructure/vpc", "infrastructure/registry", "infrastructure/cluster"]),
        started("infrastructure/vpc", 1, 10),
        started("infrastructure/registry", 1, 15),
        finished(missing("infrastructure/vpc", 10)),
        finished(ran("infrastructure/registry", ProjectResult::Succeeded, 15, 2_100)),
        started("infrastructure/cluster", 1, 60),
        finished(missing("infrastructure/cluster", 60)),
        ExecutionEvent::RunFinished { at: at(2_200), interrupted: false },
    ]
}

/// An affected `up` whose dependents read nothing that changed: `unchanged` is done, never resumed.
fn unchanged_events() -> Vec<ExecutionEvent> {
    let skipped = |project: &str, upstream: &str| {
        ProjectReport::not_run(path(project), ProjectResult::Unchanged, format!("outputs of {upstream} are the same"))
    };
    vec![
        run_started(&["infrastructure/vpc", "infrastructure/cluster", "kubernetes/app"]),
        started("infrastructure/vpc", 1, 10),
        finished(ran("infrastructure/vpc", ProjectResult::Succeeded, 10, 2_100)),
        finished(skipped("infrastructure/cluster", "infrastructure/vpc")),
        finished(skipped("kubernetes/app", "infrastructure/cluster")),
        ExecutionEvent::RunFinished { at: at(2_200), interrupted: false },
    ]
}

fn summary_of(events: &[ExecutionEvent]) -> RunSummary {
    let mut summary = RunSummary::default();
    for event in events {
        summary.on_event(event);
    }
    summary
}

fn plain_lines(events: &[ExecutionEvent]) -> String {
    let reporter = PlainReporter::new(true);
    let mut out = String::new();
    for event in events {
        if let Some(line) = reporter.line(event, "23:59:07") {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The final table, then the failures block, as `runner` prints them at the end of a run.
fn end_of_run(summary: &RunSummary) -> String {
    format!("{}{}", summary.table(), summary.failures(None))
}

/// Whatever varies between machines and runs: home folders, clock times, run ids. Durations are
/// not filtered: the events fix them, and how they are formatted (`2m01s`, `0.000`) is part of
/// what these snapshots pin.
fn check(name: &str, text: &str) {
    insta::with_settings!({
        filters => vec![
            (r"/home/[^/\s]+/[^\s]*/\.runner", "[ROOT]/.runner"),
            (r"\b\d{2}:\d{2}:\d{2}\b", "[TIME]"),
            (r"\b\d{8}T\d{6}Z-\d+\b", "[RUN_ID]"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

macro_rules! scenario_tests {
    ($($scenario:ident => $events:ident),* $(,)?) => {$(
        mod $scenario {
            use super::*;

            #[test]
            fn plain_reporter() {
                check(concat!("plain_", stringify!($scenario)), &plain_lines(&$events()));
            }

            #[test]
            fn final_table() {
                check(concat!("table_", stringify!($scenario)), &end_of_run(&summary_of(&$events())));
            }

            #[test]
            fn footer() {
                let resume = "runner up --provider aws --stack dev --resume";
                let cwd = std::path::Path::new("/home/someone/mara");
                check(concat!("footer_", stringify!($scenario)), &run_footer(&summary_of(&$events()), resume, Some(cwd)));
                let ci_job = super::super::ci_job_footer(&summary_of(&$events()), Some(cwd));
                check(concat!("ci_footer_", stringify!($scenario)), &ci_job);
            }

            #[test]
            fn terminal_lines() {
                let mut reporter = TerminalReporter::hidden(100);
                reporter.on_event(&$events()[0]);
                let lines: Vec<String> = summary_of(&$events()).ordered().into_iter().map(|r| reporter.finished_line(r)).collect();
                check(concat!("terminal_", stringify!($scenario)), &lines.join("\n"));
            }

            #[test]
            fn json_report() {
                check(concat!("json_", stringify!($scenario)), &json_text(&summary_of(&$events())).unwrap());
            }

            #[test]
            fn junit_report() {
                check(concat!("junit_", stringify!($scenario)), &junit_xml(&summary_of(&$events())).unwrap());
            }
        }
    )*};
}

scenario_tests! {
    success => success_events,
    failure => failure_events,
    cancel => cancel_events,
    not_deployed => not_deployed_events,
    unchanged => unchanged_events,
}

#[test]
fn junit_is_well_formed_and_counts_like_the_table() {
    for events in [success_events(), failure_events(), cancel_events()] {
        let summary = summary_of(&events);
        let xml = junit_xml(&summary).unwrap();
        let tests = summary.reports.len();
        let failures = summary.count(ProjectResult::Failed);
        let skipped = summary.count(ProjectResult::Skipped) + summary.count(ProjectResult::Cancelled);
        assert!(xml.contains(&format!("tests=\"{tests}\" skipped=\"{skipped}\" failures=\"{failures}\"")), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), tests, "{xml}");
    }
}

#[test]
fn the_junit_failure_message_is_the_failure_summary() {
    let summary = summary_of(&failure_events());
    let xml = junit_xml(&summary).unwrap();
    let expected = &summary.reports.iter().find_map(|report| report.failure.as_ref()).unwrap().summary;
    assert!(xml.contains(&format!("<failure message=\"{expected}\"")), "{xml}");
}

#[test]
fn the_live_count_uses_the_numbers_the_table_shows() {
    let mut progress = OperationProgress { steps_seen: 5, steps_done: 4, ..Default::default() };
    progress.observed.created = 2;
    progress.observed.unchanged = 2;
    assert_eq!(progress_status(&progress, Some(Operation::Up)), "2 created, 2 unchanged, 1 in progress");
    assert_eq!(progress_status(&progress, Some(Operation::Refresh)), "2 created, 2 in sync, 1 in progress");
    assert_eq!(progress_status(&OperationProgress::default(), None), "starting");
}

#[test]
fn live_lines_use_the_width_and_cut_long_status_in_the_middle() {
    let mut narrow = TerminalReporter::hidden(60);
    narrow.on_event(&run_started(&["kubernetes/applications/demo"]));
    let status = "creating stack `organization/local-registry-with-a-long-name/dev`";
    let message = narrow.live_message(status);
    assert!(console::measure_text_width(&message) <= 60 - 10 - 28, "{message}");
    assert!(message.starts_with("creating") && message.ends_with("/dev`"), "{message}");
    let wide = TerminalReporter::hidden(200);
    assert_eq!(wide.live_message(status), status, "a wide terminal shows it whole");
}

#[test]
fn every_row_keeps_its_result_word_in_one_column_at_every_width() {
    for events in [success_events(), failure_events(), cancel_events(), not_deployed_events()] {
        let summary = summary_of(&events);
        for columns in 50..=200 {
            let mut reporter = TerminalReporter::hidden(columns);
            reporter.on_event(&events[0]);
            let mut result_columns = std::collections::BTreeSet::new();
            for report in summary.ordered() {
                let line = reporter.finished_line(report);
                let word = format!(" {} ", report.result.as_str());
                let at = line.find(&word).unwrap_or_else(|| panic!("no result word at {columns} columns: {line}"));
                result_columns.insert(console::measure_text_width(&line[..at]));
                assert!(console::measure_text_width(&line) <= columns, "{line} is wider than {columns}");
            }
            assert_eq!(result_columns.len(), 1, "ragged result column at {columns}");
            let live_status = LIVE_TEMPLATE
                .replace("{spinner}", "x")
                .replace("{prefix}", &" ".repeat(reporter.path_width_for_tests()));
            assert_eq!(
                live_status.find("{status}").map(|at| at - 1),
                result_columns.first().copied(),
                "a live line's status and a finished line's result word start in one column"
            );
        }
    }
}

#[test]
fn a_live_count_is_cut_after_a_whole_part() {
    let status = "1 unchanged, 1 in progress";
    for columns in 40..=80 {
        let mut reporter = TerminalReporter::hidden(columns);
        reporter.on_event(&run_started(&["kubernetes/applications/demo"]));
        let message = reporter.live_message(status);
        let kept = message.trim_end_matches('…');
        assert!(
            kept.is_empty() || message == status || ["1 unchanged", "1 unchanged, 1 in", "1"].contains(&kept),
            "{message:?} at {columns} columns"
        );
    }
}

#[test]
fn the_header_and_the_interrupt_wrap_at_a_space_on_a_narrow_terminal() {
    let ExecutionEvent::RunStarted(info) = run_started(&["infrastructure/vpc", "kubernetes/app"]) else {
        unreachable!("run_started makes a `RunStarted`")
    };
    assert_eq!(TerminalReporter::hidden(100).header(&info), "up 2 projects of `aws` on stack `dev`, up to 2 at once");
    assert_eq!(TerminalReporter::hidden(40).header(&info), "up 2 projects of `aws` on stack `dev`,\n  up to 2 at once");
    let interrupted = TerminalReporter::hidden(40).interrupting_line(false);
    assert_eq!(interrupted, "interrupted: cancelling running projects\n  (Ctrl-C again to kill them)");
}

#[test]
fn a_preview_row_uses_pulumis_preview_words() {
    let events = success_events();
    let summary = summary_of(&events);
    let mut report =
        summary.reports.iter().find(|report| report.project.as_str() == "infrastructure/cluster").unwrap().clone();
    report.operation = Some(Operation::Preview);
    let mut reporter = TerminalReporter::hidden(200);
    reporter.on_event(&events[0]);
    let line = reporter.finished_line(&report);
    assert!(line.contains("3 to create, 1 to update, 20 unchanged"), "{line}");
    let progress =
        OperationProgress { steps_seen: 1, is_preview: Some(true), observed: report.changes, ..Default::default() };
    let status = progress_status(&progress, Some(Operation::Up));
    assert!(status.starts_with("3 to create, 1 to update"), "{status}");
}
