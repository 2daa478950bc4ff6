use tokio::sync::mpsc;

use super::{EtaTracker, Reporter, RunSummary};
use crate::execute::ExecutionEvent;
use crate::secrets::SecretMask;

/// How often reporters get `on_tick`.
pub(super) const TICK: std::time::Duration = std::time::Duration::from_millis(100);

/// Hands every event, masked, to every reporter, until the executor drops its sender.
/// With an `eta`, each start and end is followed by a fresh `RunEstimate`.
/// Returns the summary it collected along the way.
pub(crate) async fn dispatch_events(
    mut receiver: mpsc::Receiver<ExecutionEvent>,
    reporters: Vec<Box<dyn Reporter>>,
    mask: SecretMask,
    mut eta: Option<EtaTracker>,
) -> RunSummary {
    let mut summary = RunSummary::default();
    // A reporter or the forecast that panics is dropped, and the fault kept for the end of the
    // run: the others, the summary above all, still see every event, so what ran is recorded.
    let mut reporters: Vec<Option<Box<dyn Reporter>>> = reporters.into_iter().map(Some).collect();
    let mut next_tick = tokio::time::Instant::now() + TICK;
    loop {
        let received = tokio::time::timeout_at(next_tick, receiver.recv()).await;
        if tokio::time::Instant::now() >= next_tick {
            next_tick = tokio::time::Instant::now() + TICK;
            for slot in reporters.iter_mut() {
                let Some(reporter) = slot.as_mut() else { continue };
                if let Err(panic) = contained(|| reporter.on_tick()) {
                    summary.faults.push(format!("the {} failed: {panic}", reporter.name()));
                    *slot = None;
                }
            }
        }
        let event = match received {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(_elapsed) => continue,
        };
        let event = mask_event(event, &mask);
        let estimate = match eta.as_mut().map(|eta| contained(|| eta.on_event(&event))) {
            Some(Err(panic)) => {
                summary.faults.push(format!("the ETA forecast failed: {panic}"));
                eta = None;
                None
            }
            Some(Ok(estimate)) => estimate,
            None => None,
        };
        for event in std::iter::once(event).chain(estimate) {
            for slot in reporters.iter_mut() {
                let Some(reporter) = slot.as_mut() else { continue };
                if let Err(panic) = contained(|| reporter.on_event(&event)) {
                    summary.faults.push(format!("the {} failed: {panic}", reporter.name()));
                    *slot = None;
                }
            }
            summary.on_event(&event);
        }
    }
    for reporter in reporters.iter_mut().flatten() {
        match contained(|| reporter.finish()) {
            Ok(Ok(())) => {}
            Ok(Err(unwritten)) => summary.unwritten.push(unwritten),
            Err(panic) => summary.faults.push(format!("the {} failed: {panic}", reporter.name())),
        }
    }
    summary
}

/// A reporter's panic, caught: what it said.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Panicked(String);

/// Runs `work`, turning a panic into its message.
fn contained<T>(work: impl FnOnce() -> T) -> Result<T, Panicked> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        .map_err(|payload| Panicked(panic_message(payload.as_ref())))
}

/// What a panic said: its `&str` or `String` payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

fn mask_event(event: ExecutionEvent, mask: &SecretMask) -> ExecutionEvent {
    if mask.is_empty() {
        return event;
    }
    match event {
        ExecutionEvent::ProjectOutput { project, stream, line } => {
            ExecutionEvent::ProjectOutput { project, stream, line: mask.apply(&line) }
        }
        ExecutionEvent::ProjectNote { project, message } => {
            ExecutionEvent::ProjectNote { project, message: mask.apply(&message) }
        }
        ExecutionEvent::ProjectProgress { project, mut progress } => {
            progress.errors.iter_mut().for_each(|line| *line = mask.apply(line));
            progress.warnings.iter_mut().for_each(|line| *line = mask.apply(line));
            ExecutionEvent::ProjectProgress { project, progress }
        }
        ExecutionEvent::ProjectFinished(mut report) => {
            report.reason = report.reason.map(|reason| mask.apply(&reason));
            report.retried.iter_mut().for_each(|line| *line = mask.apply(line));
            if let Some(failure) = report.failure.as_mut() {
                failure.summary = mask.apply(&failure.summary);
                failure.diagnostics.iter_mut().for_each(|line| *line = mask.apply(line));
                failure.log_tail.iter_mut().for_each(|line| *line = mask.apply(line));
            }
            ExecutionEvent::ProjectFinished(report)
        }
        ExecutionEvent::KubeconfigInstalled(mut installed) => {
            installed.context = mask.apply(&installed.context);
            ExecutionEvent::KubeconfigInstalled(installed)
        }
        // Listed one by one, so a new event with text in it cannot pass unmasked unnoticed.
        event @ (ExecutionEvent::RunStarted(_)
        | ExecutionEvent::ProjectStarted { .. }
        | ExecutionEvent::PulumiStarted { .. }
        | ExecutionEvent::Interrupting { .. }
        | ExecutionEvent::RunFinished { .. }
        | ExecutionEvent::RunEstimate { .. }) => event,
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::execute::{ProjectReport, ProjectResult};
    use crate::provider::ProjectPath;

    /// Panics on the second event it sees, and counts what it saw.
    struct Brittle(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Reporter for Brittle {
        fn on_event(&mut self, _: &ExecutionEvent) {
            let seen = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            assert!(seen < 1, "attempt to subtract with overflow");
        }
    }

    #[tokio::test]
    async fn a_panicking_reporter_is_dropped_and_named_while_the_summary_sees_every_event() {
        let (events, receiver) = crate::execute::EventSender::channel(16);
        let seen = std::sync::Arc::default();
        let brittle: Box<dyn Reporter> = Box::new(Brittle(std::sync::Arc::clone(&seen)));
        let dispatcher = tokio::spawn(dispatch_events(receiver, vec![brittle], SecretMask::default(), None));
        for project in ["a", "b", "c"] {
            let report = ProjectReport::not_run(ProjectPath::new(project), ProjectResult::Succeeded, String::new());
            events.send(ExecutionEvent::ProjectFinished(report)).await;
        }
        events.send(ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false }).await;
        drop(events);
        let summary = dispatcher.await.unwrap();
        assert_eq!(summary.reports.len(), 3, "every project is still in the summary");
        assert!(summary.finished.is_some());
        assert_eq!(summary.faults, ["the reporter failed: attempt to subtract with overflow"]);
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 2, "dropped after its panic");
        assert!(!summary.all_succeeded(), "a fault fails the run");
    }

    /// Writes nothing, and says so when the run is over.
    struct Unwritable;

    impl Reporter for Unwritable {
        fn on_event(&mut self, _: &ExecutionEvent) {}

        fn finish(&mut self) -> Result<(), String> {
            Err("the run history could not be written (disk full)".into())
        }
    }

    #[tokio::test]
    async fn what_a_reporter_could_not_write_reaches_the_summary_at_the_end() {
        let (events, receiver) = crate::execute::EventSender::channel(4);
        let dispatcher =
            tokio::spawn(dispatch_events(receiver, vec![Box::new(Unwritable)], SecretMask::default(), None));
        events.send(ExecutionEvent::RunFinished { at: SystemTime::now(), interrupted: false }).await;
        drop(events);
        let summary = dispatcher.await.unwrap();
        assert_eq!(summary.unwritten, ["the run history could not be written (disk full)"]);
        assert!(summary.faults.is_empty());
    }

    /// Counts its ticks.
    struct Ticking(std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Reporter for Ticking {
        fn on_event(&mut self, _: &ExecutionEvent) {}

        fn on_tick(&mut self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Ticks come while nothing happens and while events never stop: a flood of output lines
    /// from one project must not keep a reporter from writing what another project did.
    #[tokio::test]
    async fn reporters_tick_in_silence_and_in_a_flood_of_events() {
        for flood in [false, true] {
            let (events, receiver) = crate::execute::EventSender::channel(16);
            let ticks = std::sync::Arc::default();
            let ticking: Box<dyn Reporter> = Box::new(Ticking(std::sync::Arc::clone(&ticks)));
            let dispatcher = tokio::spawn(dispatch_events(receiver, vec![ticking], SecretMask::default(), None));
            let until = tokio::time::Instant::now() + TICK * 4;
            while tokio::time::Instant::now() < until {
                if flood {
                    let line = "Updating (dev)".to_string();
                    let project = ProjectPath::new("eks");
                    events
                        .send(ExecutionEvent::ProjectOutput {
                            project,
                            stream: crate::execute::OutputStream::Stdout,
                            line,
                        })
                        .await;
                }
                tokio::time::sleep(TICK / 10).await;
            }
            drop(events);
            dispatcher.await.unwrap();
            assert!(ticks.load(std::sync::atomic::Ordering::SeqCst) >= 1, "flood {flood}: no tick in four ticks' time");
        }
    }
}
