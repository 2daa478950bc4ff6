use tokio::sync::watch;

/// How hard running work is being stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum CancelLevel {
    Running,
    /// Start nothing new; ask running `pulumi` processes to cancel (SIGINT once).
    Graceful,
    /// Kill running processes now.
    Kill,
}

/// Shared by the executor, every running project and the signal handler. Only ever escalates.
#[derive(Debug, Clone)]
pub(crate) struct Cancellation {
    sender: watch::Sender<CancelLevel>,
}

impl Default for Cancellation {
    fn default() -> Self {
        Self::new()
    }
}

impl Cancellation {
    pub(crate) fn new() -> Self {
        Self { sender: watch::channel(CancelLevel::Running).0 }
    }

    /// The one a run uses, and so every child the process starts without a cancellation at hand
    /// (a history read inside a blocking task, `pulumi stack output` after the run). Outside a
    /// run nothing escalates it: the terminal's Ctrl-C ends the runner, and its children get
    /// SIGINT from the kernel (see `ChildProcess`).
    pub(crate) fn process() -> Self {
        static PROCESS: std::sync::OnceLock<Cancellation> = std::sync::OnceLock::new();
        PROCESS.get_or_init(Cancellation::new).clone()
    }

    pub(crate) fn level(&self) -> CancelLevel {
        *self.sender.borrow()
    }

    pub(crate) fn escalate(&self, level: CancelLevel) {
        self.sender.send_if_modified(|current| {
            if level > *current {
                *current = level;
                true
            } else {
                false
            }
        });
    }

    /// Moves to the next level: the first Ctrl-C is graceful, the second kills.
    pub(crate) fn escalate_next(&self) -> CancelLevel {
        let next = match self.level() {
            CancelLevel::Running => CancelLevel::Graceful,
            _ => CancelLevel::Kill,
        };
        self.escalate(next);
        next
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<CancelLevel> {
        self.sender.subscribe()
    }
}
