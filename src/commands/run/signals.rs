use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::execute::{CancelLevel, Cancellation, EventSender, ExecutionEvent};

/// The signals that stop a run: Ctrl-C (SIGINT), SIGTERM from a CI runner or `kill`, and SIGHUP
/// when the terminal goes away (an SSH session drops, a window is closed). The first cancels
/// gracefully, so pulumi stops cleanly and the run is recorded; the next one kills.
pub(crate) struct RunSignals {
    interrupt: Signal,
    terminate: Signal,
    hangup: Signal,
}

impl RunSignals {
    /// Caught from here on; `None` when the runtime cannot install the handlers.
    pub(crate) fn listen() -> Option<Self> {
        Some(Self {
            interrupt: signal(SignalKind::interrupt()).ok()?,
            terminate: signal(SignalKind::terminate()).ok()?,
            hangup: signal(SignalKind::hangup()).ok()?,
        })
    }

    /// Turns each signal into the next cancellation level, telling the reporters first so the
    /// explanation precedes its effects.
    pub(crate) async fn forward(mut self, cancellation: Cancellation, events: EventSender) {
        loop {
            tokio::select! {
                _ = self.interrupt.recv() => {}
                _ = self.terminate.recv() => {}
                _ = self.hangup.recv() => silence_the_lost_terminal(),
            }
            let kill = cancellation.level() >= CancelLevel::Graceful;
            events.send(ExecutionEvent::Interrupting { kill }).await;
            cancellation.escalate_next();
        }
    }
}

/// Writing to a hung-up terminal fails, and Rust's `eprintln!` panics on a failed write: the
/// standard streams that were that terminal now point at `/dev/null`. The log files under
/// `.runner/logs/` and the run record still get everything.
fn silence_the_lost_terminal() {
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else { return };
    if is_character_device(std::io::stdout()) {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
    if is_character_device(std::io::stderr()) {
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

/// A terminal, or `/dev/null` already. `isatty` cannot tell: on a hung-up terminal it fails
/// with EIO, while `fstat` still answers. Pipes and files (a log, `tee`) are kept.
fn is_character_device(stream: impl std::os::fd::AsFd) -> bool {
    rustix::fs::fstat(stream).is_ok_and(|status| {
        rustix::fs::FileType::from_raw_mode(status.st_mode) == rustix::fs::FileType::CharacterDevice
    })
}
