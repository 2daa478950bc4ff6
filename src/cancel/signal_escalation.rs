//! A cancelled process that does not stop gets firmer signals on a timer: SIGINT, then SIGTERM
//! after a grace period, then SIGKILL.

use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct SignalEscalation {
    interrupt_grace: Duration,
    terminate_grace: Duration,
    last: Option<(i32, Instant)>,
}

impl SignalEscalation {
    pub(crate) fn new(interrupt_grace: Duration, terminate_grace: Duration) -> Self {
        Self { interrupt_grace, terminate_grace, last: None }
    }

    /// Notes a signal the caller sent.
    pub(crate) fn signalled(&mut self, signal: i32) {
        self.last = Some((signal, Instant::now()));
    }

    /// The next signal to send now, if the last one's grace has run out.
    pub(crate) fn due(&mut self) -> Option<i32> {
        self.due_at(Instant::now())
    }

    fn due_at(&mut self, now: Instant) -> Option<i32> {
        let (signal, at) = self.last?;
        let next = match signal {
            libc::SIGINT if now.duration_since(at) >= self.interrupt_grace => libc::SIGTERM,
            libc::SIGTERM if now.duration_since(at) >= self.terminate_grace => libc::SIGKILL,
            _ => return None,
        };
        self.last = Some((next, now));
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_then_terminate_then_kill_then_nothing() {
        let mut escalation = SignalEscalation::new(Duration::from_secs(30), Duration::from_secs(10));
        assert_eq!(escalation.due(), None, "nothing before the first signal");
        escalation.signalled(libc::SIGINT);
        let start = escalation.last.unwrap().1;
        assert_eq!(escalation.due_at(start + Duration::from_secs(29)), None);
        assert_eq!(escalation.due_at(start + Duration::from_secs(30)), Some(libc::SIGTERM));
        assert_eq!(escalation.due_at(start + Duration::from_secs(35)), None);
        assert_eq!(escalation.due_at(start + Duration::from_secs(40)), Some(libc::SIGKILL));
        assert_eq!(escalation.due_at(start + Duration::from_secs(400)), None);
    }
}
