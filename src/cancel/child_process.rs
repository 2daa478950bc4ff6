//! Every process the runner starts (`pulumi` of every kind, `on_success` commands, `ready`
//! commands, `git`, `kubectl`) is a [`ChildProcess`]: nothing else in `src/` spawns one, so no
//! child can escape the run's cancellation or wait forever.
//!
//! - Its own process group, so the terminal's Ctrl-C reaches the runner only and the runner
//!   decides: the run's first cancellation interrupts the whole group (SIGINT, then SIGTERM and
//!   SIGKILL after the graces), the next one kills the whole group at once.
//! - A timeout, after which the whole group is killed.
//! - Its result is its exit status: output still open once it exited (a background child holding
//!   stderr, `kubectl port-forward &`) is read for a short grace and dropped.
//! - When the runner dies first (kill -9, a Ctrl-C outside a run), the child gets SIGINT, as it
//!   would have from the terminal.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

use super::{CancelLevel, Cancellation, SignalEscalation};

/// After SIGINT, a child gets this long to stop by itself (Pulumi cancels its operation and
/// releases its lock; the Automation API waits about 10 s) before its group gets SIGTERM...
pub(crate) const INTERRUPT_GRACE: Duration = Duration::from_secs(30);
/// ...and this long after SIGTERM before SIGKILL: nothing is ever waited on forever.
pub(super) const TERMINATE_GRACE: Duration = Duration::from_secs(10);
/// Output still open after the child exited is read this long, then dropped.
pub(crate) const OUTPUT_GRACE: Duration = Duration::from_millis(500);
/// A `pulumi` query or a one-value change (outputs, history, `config set`, `cancel`, `version`)
/// that takes longer than this is stuck.
pub(crate) const QUERY_TIMEOUT: Duration = Duration::from_secs(300);
pub(super) const NOT_FOUND: &str = "no such program";
/// How often a waiting child looks at the clock (escalation, timeout).
const TICK: Duration = Duration::from_millis(100);

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChildEnd {
    Exited(i32),
    Signaled(i32),
    /// The timeout ran out and the whole group was killed.
    TimedOut(Duration),
    SpawnFailed(String),
}

impl ChildEnd {
    pub(crate) fn success(&self) -> bool {
        matches!(self, ChildEnd::Exited(0))
    }

    /// The program does not exist (not on PATH, a wrong path).
    pub(crate) fn program_missing(&self) -> bool {
        matches!(self, ChildEnd::SpawnFailed(reason) if reason.ends_with(NOT_FOUND))
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            ChildEnd::Exited(code) => format!("exit code {code}"),
            ChildEnd::Signaled(signal) => format!("signal {signal}"),
            ChildEnd::TimedOut(after) => format!("timed out after {}", humantime::format_duration(*after)),
            ChildEnd::SpawnFailed(reason) => format!("could not start: {reason}"),
        }
    }
}

/// What [`ChildProcess::output`] collected.
#[derive(Debug, Clone)]
pub(crate) struct ChildOutput {
    pub end: ChildEnd,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The run's cancellation signalled the child.
    pub cancelled: bool,
}

impl ChildOutput {
    pub(crate) fn success(&self) -> bool {
        self.end.success()
    }

    pub(crate) fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub(crate) fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Why a helper said it failed: its first non-empty stderr line, at most 200 characters (a
    /// surprise further down, a token dumped by mistake, stays out of the message).
    pub(crate) fn stderr_reason(&self) -> String {
        let stderr = String::from_utf8_lossy(&self.stderr);
        stderr.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("").chars().take(200).collect()
    }
}

/// A process to start; see the module's description.
pub(crate) struct ChildProcess {
    command: Command,
    program: String,
    stdin: Option<Vec<u8>>,
    stdout: bool,
    pub timeout: Option<Duration>,
    pub interrupt_grace: Duration,
    pub terminate_grace: Duration,
    pub output_grace: Duration,
}

impl ChildProcess {
    // The one place a process is started (clippy.toml): every other caller comes through here.
    #[allow(clippy::disallowed_methods)]
    pub(crate) fn new(program: impl AsRef<OsStr>) -> Self {
        Self {
            command: Command::new(program.as_ref()),
            program: program.as_ref().to_string_lossy().into_owned(),
            stdin: None,
            stdout: true,
            timeout: None,
            interrupt_grace: INTERRUPT_GRACE,
            terminate_grace: TERMINATE_GRACE,
            output_grace: OUTPUT_GRACE,
        }
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    pub(crate) fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.command.args(args);
        self
    }

    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Exactly these variables, none of the runner's own.
    pub(crate) fn env_clear(mut self) -> Self {
        self.command.env_clear();
        self
    }

    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    pub(crate) fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Written to the child's stdin, which then closes (a secret never goes on the command line).
    pub(crate) fn stdin_bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// Nobody reads stdout: it goes to `/dev/null`.
    pub(crate) fn discard_stdout(mut self) -> Self {
        self.stdout = false;
        self
    }

    pub(crate) fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub(crate) fn spawn(mut self) -> Result<RunningChild, super::SpawnError> {
        let stdout = if self.stdout { Stdio::piped() } else { Stdio::null() };
        let stdin = if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() };
        self.command.stdin(stdin).stdout(stdout).stderr(Stdio::piped()).process_group(0).kill_on_drop(true);
        // SAFETY: `pre_exec` runs between fork and exec; the closure only makes `prctl`, which is
        // async-signal-safe and touches only the new process.
        #[allow(unsafe_code)]
        unsafe {
            self.command.pre_exec(|| {
                let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::INT));
                Ok(())
            });
        }
        let program = self.program.clone();
        let mut child = self.command.spawn().map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => super::SpawnError::NotFound { program },
            _ => super::SpawnError::Failed { program, source },
        })?;
        if let (Some(bytes), Some(mut pipe)) = (self.stdin, child.stdin.take()) {
            tokio::spawn(async move {
                let _ = pipe.write_all(&bytes).await;
            });
        }
        Ok(RunningChild {
            pid: child.id().and_then(|pid| i32::try_from(pid).ok()).filter(|pid| *pid > 0),
            child,
            deadline: self.timeout.map(|timeout| (Instant::now() + timeout, timeout)),
            timed_out: false,
            signalled: CancelLevel::Running,
            escalation: SignalEscalation::new(self.interrupt_grace, self.terminate_grace),
            end: None,
        })
    }

    /// Runs the child to its end and collects what it printed.
    pub(crate) async fn output(self, cancellation: &Cancellation) -> ChildOutput {
        let grace = self.output_grace;
        let mut running = match self.spawn() {
            Ok(running) => running,
            Err(err) => {
                let end = ChildEnd::SpawnFailed(crate::error::ErrorChain(&err).to_string());
                return ChildOutput { end, stdout: Vec::new(), stderr: Vec::new(), cancelled: false };
            }
        };
        let stdout = running.take_stdout().map(collect);
        let stderr = running.take_stderr().map(collect);
        let end = running.wait(cancellation).await;
        let until = tokio::time::Instant::now() + grace;
        let stdout = match stdout {
            Some(collected) => collected.finish(until).await,
            None => Vec::new(),
        };
        let stderr = match stderr {
            Some(collected) => collected.finish(until).await,
            None => Vec::new(),
        };
        ChildOutput { end, stdout, stderr, cancelled: running.cancelled() }
    }

    /// [`output`](Self::output) for code that is not async: on a thread of its own with a
    /// runtime of its own, so it works from inside a runtime too.
    pub(crate) fn output_blocking(self, cancellation: &Cancellation) -> ChildOutput {
        let cancellation = cancellation.clone();
        let program = self.program.clone();
        let failed = |reason: String| ChildOutput {
            end: ChildEnd::SpawnFailed(format!("`{program}`: {reason}")),
            stdout: Vec::new(),
            stderr: Vec::new(),
            cancelled: false,
        };
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            runtime.map(|runtime| runtime.block_on(self.output(&cancellation))).map_err(|err| err.to_string())
        });
        match thread.join() {
            Ok(Ok(output)) => output,
            Ok(Err(reason)) => failed(reason),
            Err(_) => failed("its thread panicked".into()),
        }
    }
}

/// A started child. Dropped before it ended (a timeout around it, an aborted task), it kills its
/// whole group.
pub(crate) struct RunningChild {
    child: Child,
    pid: Option<i32>,
    deadline: Option<(Instant, Duration)>,
    timed_out: bool,
    signalled: CancelLevel,
    escalation: SignalEscalation,
    end: Option<ChildEnd>,
}

impl RunningChild {
    pub(crate) fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    pub(crate) fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// Its process id, while the runner has it.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid.and_then(|pid| u32::try_from(pid).ok())
    }

    /// The run's cancellation reached the child.
    pub(crate) fn cancelled(&self) -> bool {
        self.signalled > CancelLevel::Running
    }

    /// Waits for the child's exit, passing the run's cancellation on. Cancel-safe: it may lose a
    /// `select!` and be called again.
    pub(crate) async fn wait(&mut self, cancellation: &Cancellation) -> ChildEnd {
        if let Some(end) = &self.end {
            return end.clone();
        }
        let mut changes = cancellation.subscribe();
        loop {
            let level = cancellation.level();
            if level > self.signalled {
                let signal = if level == CancelLevel::Kill { libc::SIGKILL } else { libc::SIGINT };
                self.signal_group(signal);
                self.escalation.signalled(signal);
                self.signalled = level;
            }
            if let Some(signal) = self.escalation.due() {
                self.signal_group(signal);
            }
            if !self.timed_out && self.deadline.is_some_and(|(deadline, _)| Instant::now() >= deadline) {
                self.timed_out = true;
                self.signal_group(libc::SIGKILL);
            }
            tokio::select! {
                status = self.child.wait() => {
                    let end = self.ended(status);
                    self.end = Some(end.clone());
                    return end;
                }
                changed = changes.changed() => {
                    if changed.is_err() {
                        tokio::time::sleep(TICK).await;
                    }
                }
                _ = tokio::time::sleep(TICK) => {}
            }
        }
    }

    fn ended(&mut self, status: std::io::Result<std::process::ExitStatus>) -> ChildEnd {
        use std::os::unix::process::ExitStatusExt;
        if self.cancelled() || self.timed_out {
            // What the leader left behind in its group goes with it.
            self.signal_group(libc::SIGKILL);
        }
        match (status, self.deadline) {
            (_, Some((_, timeout))) if self.timed_out => ChildEnd::TimedOut(timeout),
            (Ok(status), _) => match (status.code(), status.signal()) {
                (Some(code), _) => ChildEnd::Exited(code),
                (None, Some(signal)) => ChildEnd::Signaled(signal),
                (None, None) => ChildEnd::Exited(-1),
            },
            (Err(err), _) => ChildEnd::SpawnFailed(err.to_string()),
        }
    }

    /// Negative pid: the whole process group, so grandchildren (plugins, `sh -c` commands) too.
    fn signal_group(&self, signal: i32) {
        if let Some(pid) = self.pid {
            super::signal_group(pid, signal);
        }
    }
}

impl Drop for RunningChild {
    fn drop(&mut self) {
        if self.end.is_none() {
            self.signal_group(libc::SIGKILL);
        }
    }
}

/// A stream read in the background into a buffer that can be taken before end-of-file.
struct Collected {
    buffer: Arc<Mutex<Vec<u8>>>,
    reader: tokio::task::JoinHandle<()>,
}

fn collect(mut stream: impl AsyncRead + Unpin + Send + 'static) -> Collected {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let filled = Arc::clone(&buffer);
    let reader = tokio::spawn(async move {
        let mut chunk = vec![0u8; 16 * 1024];
        while let Ok(read @ 1..) = stream.read(&mut chunk).await {
            if let Ok(mut buffer) = filled.lock() {
                buffer.extend_from_slice(&chunk[..read]);
            }
        }
    });
    Collected { buffer, reader }
}

impl Collected {
    /// What was read by end-of-file, or by `until` when something still holds the stream open.
    async fn finish(mut self, until: tokio::time::Instant) -> Vec<u8> {
        if tokio::time::timeout_at(until, &mut self.reader).await.is_err() {
            self.reader.abort();
        }
        self.buffer.lock().map(|mut buffer| std::mem::take(&mut *buffer)).unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "child_process_tests.rs"]
mod tests;
