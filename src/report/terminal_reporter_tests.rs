use std::time::{Duration, Instant, SystemTime};

use indicatif::InMemoryTerm;

use super::*;
use crate::execute::ProjectReport;
use crate::report::wording_tests::info;

fn finished(project: &str) -> ExecutionEvent {
    let mut report = ProjectReport::not_run(ProjectPath::new(project), ProjectResult::Succeeded, String::new());
    report.reason = None;
    ExecutionEvent::ProjectFinished(report)
}

fn estimate(ended: usize, total: usize) -> ExecutionEvent {
    ExecutionEvent::RunEstimate { remaining: Duration::from_secs(10), ended, total }
}

/// Waits until the screen shows `wanted`, for at most four seconds; the screen as it is then.
fn screen_showing(screen: &InMemoryTerm, wanted: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(4);
    loop {
        let contents = screen.contents();
        if contents.contains(wanted) || Instant::now() > deadline {
            return contents;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The live area is drawn at most 8 times a second, and live rows that tick use that up: an
/// update of the ETA line that comes between two draws is not drawn then. The line still shows
/// each new count soon after, never stays on an older one while the rows above say more are done.
#[test]
fn the_eta_line_shows_each_new_count_while_live_rows_use_up_the_draws() {
    let screen = InMemoryTerm::new(24, 100);
    let mut reporter = TerminalReporter::on_screen(&screen, 100);
    let projects = ["a", "b", "c", "d", "e", "f", "g", "h"];
    reporter.on_event(&ExecutionEvent::RunStarted(info(&projects)));
    for project in projects {
        reporter.on_event(&ExecutionEvent::ProjectStarted {
            project: ProjectPath::new(project),
            attempt: 1,
            at: SystemTime::now(),
        });
    }
    reporter.on_event(&estimate(0, projects.len()));
    // Eight rows ticking 8 times a second each: the burst the draw rate allows is soon spent.
    std::thread::sleep(Duration::from_millis(1500));
    for (ended, project) in projects.iter().enumerate().take(4).map(|(index, project)| (index + 1, project)) {
        reporter.on_event(&finished(project));
        reporter.on_event(&estimate(ended, projects.len()));
        let wanted = format!("({ended} of {} done)", projects.len());
        let contents = screen_showing(&screen, &wanted);
        assert!(contents.contains(&wanted), "the ETA line is stale, {wanted} never shown:\n{contents}");
        let done_rows = contents.lines().filter(|line| line.starts_with('✓')).count();
        assert_eq!(done_rows, ended, "{contents}");
    }
    reporter.on_event(&ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false });
}
