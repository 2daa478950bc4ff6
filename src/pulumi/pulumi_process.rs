use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::{EventLogTail, OperationProgress, ProcessMark, MARKER_VARIABLE};
use crate::cancel::{ChildEnd, ChildProcess};
use crate::execute::{Cancellation, EventSender, ExecutionEvent, OutputStream};
use crate::provider::ProjectPath;
use crate::secrets::SecretMask;
use crate::text::counted_as;

/// Lines kept for the failure summary: the end of the output is where Pulumi explains itself.
const TAIL_LINES: usize = 25;
/// Longer output lines are split into pieces (never truncated) so one huge line cannot fill
/// memory; a piece never ends inside a known secret, so each piece masks on its own.
const MAX_LINE_BYTES: usize = 16 * 1024;
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);
/// Once pulumi exited, its output is read this long at most: generous, since a busy reporter
/// slows the reading, yet a plugin left holding the pipes cannot keep the project running.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// How a child process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExitState {
    Exited(i32),
    Signaled(i32),
    SpawnFailed(String),
}

impl ExitState {
    pub(crate) fn success(&self) -> bool {
        matches!(self, ExitState::Exited(0))
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            ExitState::Exited(code) => format!("exit code {code}"),
            ExitState::Signaled(signal) => format!("signal {signal}{}", signal_name(*signal)),
            ExitState::SpawnFailed(reason) => format!("could not start: {reason}"),
        }
    }
}

/// ` (SIGINT)`: the name people know a signal by, when it is a common one.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => " (SIGINT)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGHUP => " (SIGHUP)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        _ => "",
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ProcessOutcome {
    pub exit: ExitState,
    pub progress: OperationProgress,
    pub output_tail: Vec<String>,
    /// True when the runner asked the process to stop.
    pub cancelled: bool,
}

impl ProcessOutcome {
    pub(crate) fn output_mentions(&self, needle: &str) -> bool {
        self.output_tail.iter().any(|line| line.contains(needle))
            || self.progress.errors.iter().any(|line| line.contains(needle))
    }
}

/// One `pulumi` invocation: its own process group, output streamed as events line by line,
/// the event log followed for progress, the run's cancellation passed on (a [`ChildProcess`]).
pub(crate) struct PulumiProcess<'a> {
    pub program: &'a Path,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub env: &'a BTreeMap<String, String>,
    pub event_log: Option<PathBuf>,
    pub project: &'a ProjectPath,
    /// Known secrets, so a long line is never split inside one.
    pub mask: Option<&'a SecretMask>,
    /// How long a cancelled `pulumi` gets to stop by itself ([`crate::cancel::INTERRUPT_GRACE`] in a run).
    pub interrupt_grace: Duration,
}

impl PulumiProcess<'_> {
    pub(crate) async fn run(self, events: &EventSender, cancellation: &Cancellation) -> ProcessOutcome {
        let mark = ProcessMark::unique();
        let mut child = ChildProcess::new(self.program)
            .args(&self.args)
            .current_dir(self.cwd)
            .env_clear()
            .envs(self.env)
            .env(MARKER_VARIABLE, mark.value());
        child.interrupt_grace = self.interrupt_grace;
        let mut child = match child.spawn() {
            Ok(child) => child,
            Err(err) => {
                return ProcessOutcome {
                    exit: ExitState::SpawnFailed(crate::error::ErrorChain(&err).to_string()),
                    progress: OperationProgress::default(),
                    output_tail: Vec::new(),
                    cancelled: false,
                }
            }
        };
        if let Some(pid) = child.pid() {
            let at = std::time::SystemTime::now();
            events.send(ExecutionEvent::PulumiStarted { project: self.project.clone(), pid, at }).await;
        }
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL_LINES)));
        let stdout = child.take_stdout().map(|out| {
            tokio::spawn(forward_lines(
                out,
                self.project.clone(),
                OutputStream::Stdout,
                events.clone(),
                Arc::clone(&tail),
                self.mask.cloned().unwrap_or_default(),
            ))
        });
        let stderr = child.take_stderr().map(|err| {
            tokio::spawn(forward_lines(
                err,
                self.project.clone(),
                OutputStream::Stderr,
                events.clone(),
                Arc::clone(&tail),
                self.mask.cloned().unwrap_or_default(),
            ))
        });

        let mut log = self.event_log.as_deref().map(EventLogTail::new);
        let mut progress = OperationProgress::default();
        let mut ticker = tokio::time::interval(PROGRESS_INTERVAL);
        let end = loop {
            tokio::select! {
                end = child.wait(cancellation) => break end,
                _ = ticker.tick() => {
                    if let Some(log) = log.as_mut() {
                        let fresh = log.poll();
                        if !fresh.is_empty() {
                            fresh.iter().for_each(|event| progress.apply(event));
                            events.send(ExecutionEvent::ProjectProgress { project: self.project.clone(), progress: progress.clone() }).await;
                        }
                    }
                }
            }
        };
        let cancelled = child.cancelled();
        // Before the output is drained: a leftover plugin could hold pulumi's pipes open.
        let abnormal = cancelled || !matches!(end, ChildEnd::Exited(_));
        if abnormal {
            let stopped = tokio::task::spawn_blocking(move || mark.stop_marked_processes()).await.unwrap_or_default();
            if !stopped.is_empty() {
                let message = format!(
                    "stopped {} pulumi left running (its language host or plugins)",
                    counted_as(stopped.len(), "process", "processes")
                );
                events.send(ExecutionEvent::ProjectNote { project: self.project.clone(), message }).await;
            }
        }
        // What pulumi printed is read to its end, unless something it left holds its pipes.
        let until = tokio::time::Instant::now() + DRAIN_LIMIT;
        for mut reader in [stdout, stderr].into_iter().flatten() {
            if tokio::time::timeout_at(until, &mut reader).await.is_err() {
                reader.abort();
            }
        }
        if let Some(log) = log.as_mut() {
            log.finish().iter().for_each(|event| progress.apply(event));
        }
        let exit = match end {
            ChildEnd::Exited(code) => ExitState::Exited(code),
            ChildEnd::Signaled(signal) => ExitState::Signaled(signal),
            ChildEnd::TimedOut(_) => ExitState::Signaled(libc::SIGKILL),
            ChildEnd::SpawnFailed(reason) => ExitState::SpawnFailed(reason),
        };
        let output_tail = tail.lock().map(|lines| lines.iter().cloned().collect()).unwrap_or_default();
        ProcessOutcome { exit, progress, output_tail, cancelled }
    }
}

async fn forward_lines(
    stream: impl AsyncRead + Unpin,
    project: ProjectPath,
    kind: OutputStream,
    events: EventSender,
    tail: Arc<Mutex<VecDeque<String>>>,
    mask: SecretMask,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut line = Vec::with_capacity(256);
    loop {
        let available = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(available) => available,
        };
        let (taken, complete) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        while line.len() > MAX_LINE_BYTES {
            let cut = crate::secrets::split_point(&mask, &line, MAX_LINE_BYTES);
            let rest = line.split_off(cut);
            emit(&mut line, &project, kind, &events, &tail).await;
            line = rest;
        }
        if complete {
            emit(&mut line, &project, kind, &events, &tail).await;
        }
    }
    if !line.is_empty() {
        emit(&mut line, &project, kind, &events, &tail).await;
    }
}

async fn emit(
    line: &mut Vec<u8>,
    project: &ProjectPath,
    stream: OutputStream,
    events: &EventSender,
    tail: &Mutex<VecDeque<String>>,
) {
    // Colour codes some plugins print whatever `--color` says belong to no log, report or pipe.
    let text = super::strip_ansi_codes(String::from_utf8_lossy(line).trim_end_matches(['\n', '\r']));
    line.clear();
    if let Ok(mut tail) = tail.lock() {
        if !text.trim().is_empty() {
            if tail.len() == TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(text.clone());
        }
    }
    events.send(ExecutionEvent::ProjectOutput { project: project.clone(), stream, line: text }).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::CancelLevel;

    async fn lines_of(input: Vec<u8>, mask: SecretMask) -> Vec<String> {
        let (events, mut receiver) = EventSender::channel(1024);
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let project = ProjectPath::new("p");
        forward_lines(&input[..], project, OutputStream::Stdout, events, tail, mask.clone()).await;
        let mut lines = Vec::new();
        while let Ok(event) = receiver.try_recv() {
            if let ExecutionEvent::ProjectOutput { line, .. } = event {
                lines.push(line);
            }
        }
        lines
    }

    #[tokio::test]
    async fn a_long_line_is_split_whole_and_a_secret_across_the_split_stays_masked() {
        let secret = "straddling-secret-value";
        let mut input = "a".repeat(MAX_LINE_BYTES - 5).into_bytes();
        input.extend_from_slice(secret.as_bytes());
        input.extend(std::iter::repeat_n(b'b', 3 * MAX_LINE_BYTES));
        input.extend_from_slice(b"\nnext line\n");
        let mask = SecretMask::new([secret.to_string()]);
        let lines = lines_of(input.clone(), mask.clone()).await;
        assert!(lines.len() >= 5, "{}", lines.len());
        let joined: String = lines[..lines.len() - 1].concat();
        assert_eq!(joined.len() + "next line".len() + 2, input.len(), "nothing may be dropped");
        assert_eq!(lines.last().map(String::as_str), Some("next line"));
        assert!(lines.iter().all(|piece| !mask.apply(piece).contains("straddling")));
        assert!(lines.iter().any(|piece| mask.apply(piece).contains("[secret]")));
    }

    #[tokio::test]
    async fn colour_codes_never_reach_the_events() {
        let lines = lines_of(b"\x1b[31merror:\x1b[0m boom\n".to_vec(), SecretMask::default()).await;
        assert_eq!(lines, vec!["error: boom".to_string()]);
    }

    /// A process that ignores SIGINT is not waited on forever: SIGTERM follows after the grace.
    #[tokio::test]
    async fn a_process_ignoring_sigint_is_terminated_after_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let (events, mut receiver) = EventSender::channel(1024);
        tokio::spawn(async move { while receiver.recv().await.is_some() {} });
        let cancellation = Cancellation::new();
        let stopper = cancellation.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            stopper.escalate(CancelLevel::Graceful);
        });
        let env: BTreeMap<String, String> = std::env::vars().collect();
        let project = ProjectPath::new("stubborn");
        let outcome = PulumiProcess {
            program: Path::new("sh"),
            // Ignored signals stay ignored across exec: neither sh nor sleep reacts to SIGINT.
            args: vec!["-c".into(), "trap '' INT; sleep 300".into()],
            cwd: dir.path(),
            env: &env,
            event_log: None,
            project: &project,
            mask: None,
            interrupt_grace: Duration::from_millis(500),
        }
        .run(&events, &cancellation)
        .await;
        assert!(outcome.cancelled);
        assert_eq!(outcome.exit, ExitState::Signaled(libc::SIGTERM), "{outcome:?}");
    }
}
