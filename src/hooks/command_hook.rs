use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::cancel::{Cancellation, ChildEnd, ChildProcess, OUTPUT_GRACE};
use crate::secrets::SecretMask;

/// The end of a failed hook's stderr that its error quotes, in characters (after masking).
const STDERR_TAIL_CHARS: usize = 300;

/// Why a `command` hook failed; the project then counts as failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandHookError {
    #[error("cannot start `{program}`: {reason}")]
    Spawn { program: String, reason: String },
    #[error("`{program}` timed out after {}", humantime::format_duration(*.timeout))]
    Timeout { program: String, timeout: Duration },
    #[error("`{program}` failed with {status}{}", tail_text(.stderr_tail))]
    Failed { program: String, status: String, stderr_tail: String },
    #[error("`{program}` was stopped: the run is cancelled")]
    Cancelled { program: String },
    #[error("cannot write the outputs file")]
    Outputs(#[source] std::io::Error),
}

fn tail_text(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {tail}")
    }
}

/// What a hook printed: it goes to the project's log, masked there like all output.
#[derive(Debug, Default)]
pub(crate) struct HookOutput {
    pub stdout: String,
    pub stderr: String,
}

/// One `command` hook: `argv` run directly (no shell, so no interpolation), with the project's
/// outputs in a JSON file named by `RUNNER_OUTPUTS_FILE` and as `RUNNER_OUTPUT_<NAME>` variables.
pub(crate) struct CommandHook<'a> {
    pub argv: &'a [String],
    pub timeout: Duration,
    pub cwd: &'a Path,
    pub env: &'a BTreeMap<String, String>,
    pub outputs: &'a serde_json::Map<String, serde_json::Value>,
    /// Known secrets: the quoted stderr is masked before it is cut.
    pub mask: &'a SecretMask,
    /// Output still open once the hook exited (`kubectl port-forward &`) is read this long.
    pub output_grace: Duration,
}

impl<'a> CommandHook<'a> {
    pub(crate) fn new(
        argv: &'a [String],
        timeout: Duration,
        cwd: &'a Path,
        env: &'a BTreeMap<String, String>,
        outputs: &'a serde_json::Map<String, serde_json::Value>,
        mask: &'a SecretMask,
    ) -> Self {
        Self { argv, timeout, cwd, env, outputs, mask, output_grace: OUTPUT_GRACE }
    }

    #[cfg(test)]
    /// The hook's result is its exit status, not the end of its output.
    pub(crate) async fn run(self, cancellation: &Cancellation) -> Result<(), CommandHookError> {
        self.run_logged(cancellation).await.0
    }

    /// [`run`](Self::run), with what the hook printed for the project's log.
    pub(crate) async fn run_logged(self, cancellation: &Cancellation) -> (Result<(), CommandHookError>, HookOutput) {
        let mut printed = HookOutput::default();
        let result = self.execute(cancellation, &mut printed).await;
        (result, printed)
    }

    async fn execute(self, cancellation: &Cancellation, printed: &mut HookOutput) -> Result<(), CommandHookError> {
        let program = self.argv.first().cloned().unwrap_or_default();
        // A private temporary folder: the outputs may hold secrets and must not land in
        // `.runner/`. It goes when this returns, also when the hook was killed; the runner's pid
        // in its name lets the next run remove what a killed runner left.
        let dir = super::HookTempDir::create().map_err(CommandHookError::Outputs)?;
        let outputs_file = dir.path().join("outputs.json");
        let json = serde_json::to_vec_pretty(self.outputs).map_err(|err| CommandHookError::Outputs(err.into()))?;
        write_private(&outputs_file, &json).map_err(CommandHookError::Outputs)?;

        let variables = self.outputs.iter().map(|(name, value)| {
            let text = match value {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (format!("RUNNER_OUTPUT_{}", env_name(name)), text)
        });
        let mut child = ChildProcess::new(&program)
            .args(&self.argv[1..])
            .current_dir(self.cwd)
            .env_clear()
            .envs(self.env)
            .env("RUNNER_OUTPUTS_FILE", &outputs_file)
            .envs(variables)
            .timeout(self.timeout);
        child.output_grace = self.output_grace;
        let output = child.output(cancellation).await;
        drop(dir);
        (printed.stdout, printed.stderr) = (output.stdout_text(), output.stderr_text());
        let status = match output.end {
            ChildEnd::Exited(0) => return Ok(()),
            _ if output.cancelled => return Err(CommandHookError::Cancelled { program }),
            ChildEnd::SpawnFailed(reason) => return Err(CommandHookError::Spawn { program, reason }),
            ChildEnd::TimedOut(timeout) => return Err(CommandHookError::Timeout { program, timeout }),
            ChildEnd::Exited(code) => format!("exit code {code}"),
            ChildEnd::Signaled(_) => "a signal".to_string(),
        };
        Err(CommandHookError::Failed { program, status, stderr_tail: last_line(self.mask, &output.stderr_text()) })
    }
}

/// The last non-empty line, masked whole and only then cut: a secret across the cut would
/// otherwise show its first characters.
fn last_line(mask: &SecretMask, stderr: &str) -> String {
    let masked = mask.apply(stderr);
    masked
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default()
        .chars()
        .take(STDERR_TAIL_CHARS)
        .collect()
}

fn env_name(output: &str) -> String {
    output.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelLevel;

    fn outputs() -> serde_json::Map<String, serde_json::Value> {
        serde_json::from_str(r#"{"cluster-name":"demo","count":3}"#).unwrap()
    }

    fn env() -> BTreeMap<String, String> {
        std::env::vars().collect()
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".to_string(), "-c".to_string(), script.to_string()]
    }

    async fn run_hook(argv: &[String], timeout: Duration, cwd: &Path) -> Result<(), CommandHookError> {
        let (env, outputs, mask) = (env(), outputs(), SecretMask::default());
        CommandHook::new(argv, timeout, cwd, &env, &outputs, &mask).run(&Cancellation::new()).await
    }

    #[tokio::test]
    async fn passes_outputs_as_file_and_variables() {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "test \"$RUNNER_OUTPUT_CLUSTER_NAME\" = demo && test \"$RUNNER_OUTPUT_COUNT\" = 3 && cp \"$RUNNER_OUTPUTS_FILE\" {}/copy.json",
            dir.path().display()
        );
        run_hook(&sh(&script), Duration::from_secs(10), dir.path()).await.unwrap();
        let copied: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("copy.json")).unwrap()).unwrap();
        assert_eq!(copied["cluster-name"], "demo");
    }

    #[tokio::test]
    async fn arguments_are_not_interpolated() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("should-not-exist");
        let argv = vec!["echo".to_string(), format!("$(touch {})", marker.display())];
        run_hook(&argv, Duration::from_secs(10), dir.path()).await.unwrap();
        assert!(!marker.exists());
    }

    #[tokio::test]
    async fn non_zero_exit_fails_with_stderr() {
        let err = run_hook(&sh("echo nope >&2; exit 3"), Duration::from_secs(10), Path::new(".")).await.unwrap_err();
        assert_eq!(err.to_string(), "`sh` failed with exit code 3: nope");
    }

    #[tokio::test]
    async fn a_slow_command_times_out() {
        let argv = vec!["sleep".to_string(), "5".to_string()];
        let err = run_hook(&argv, Duration::from_millis(200), Path::new(".")).await.unwrap_err();
        assert!(matches!(err, CommandHookError::Timeout { .. }));
    }

    /// `kubectl port-forward &`: the hook exited 0, its background child still holds stderr.
    #[tokio::test]
    async fn a_hook_is_done_when_it_exits_though_a_background_child_holds_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("background.pid");
        let script = format!("sleep 300 & echo $! > {}; exit 0", pid_file.display());
        let (env, outputs, mask) = (env(), outputs(), SecretMask::default());
        let argv = sh(&script);
        let mut hook = CommandHook::new(&argv, Duration::from_secs(10), dir.path(), &env, &outputs, &mask);
        hook.output_grace = Duration::from_millis(50);
        let result = hook.run(&Cancellation::new()).await;
        if let Ok(pid) = std::fs::read_to_string(&pid_file).unwrap_or_default().trim().parse::<i32>() {
            crate::cancel::signal_process(pid, libc::SIGKILL);
        }
        result.unwrap();
    }

    /// The quoted line is masked whole, then cut: cut first, a secret across the cut would show
    /// its first characters, and no mask recognises a secret's prefix.
    #[tokio::test]
    async fn a_secret_across_the_cut_shows_no_character() {
        let secret = "s3cr3t-ACROSS-the-cut-0123456789";
        let line = format!("{}{secret} and more", "x".repeat(STDERR_TAIL_CHARS - 10));
        let (env, outputs, mask) = (env(), outputs(), SecretMask::new([secret.to_string()]));
        let argv = sh(&format!("echo '{line}' >&2; exit 1"));
        let err = CommandHook::new(&argv, Duration::from_secs(10), Path::new("."), &env, &outputs, &mask)
            .run(&Cancellation::new())
            .await
            .unwrap_err();
        let CommandHookError::Failed { stderr_tail, .. } = &err else { panic!("{err:?}") };
        assert!(!stderr_tail.contains(&secret[..10]), "{stderr_tail}");
        assert!(stderr_tail.chars().count() <= STDERR_TAIL_CHARS);
        assert!(err.to_string().contains(crate::secrets::MASK), "{err}");
    }

    /// Killed on the run's second Ctrl-C: nothing of the hook stays, the outputs file (0600)
    /// with it.
    #[tokio::test]
    async fn a_killed_hook_leaves_no_process_and_no_outputs_file() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let script = format!(
            "stat -c %a \"$RUNNER_OUTPUTS_FILE\" > {seen}.mode; echo \"$RUNNER_OUTPUTS_FILE\" > {seen}.path; \
             trap '' INT; sleep 300 & echo $! > {seen}.pid; wait",
            seen = seen.display()
        );
        let cancellation = Cancellation::new();
        let stopper = cancellation.clone();
        let pid_file = dir.path().join("seen.pid");
        let watched = pid_file.clone();
        tokio::spawn(async move {
            while !watched.exists() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            stopper.escalate(CancelLevel::Graceful);
            stopper.escalate(CancelLevel::Kill);
        });
        let (env, outputs, mask) = (env(), outputs(), SecretMask::default());
        let argv = sh(&script);
        let err = CommandHook::new(&argv, Duration::from_secs(300), dir.path(), &env, &outputs, &mask)
            .run(&cancellation)
            .await
            .unwrap_err();
        assert!(matches!(err, CommandHookError::Cancelled { .. }), "{err:?}");
        let read = |ext: &str| std::fs::read_to_string(dir.path().join(format!("seen.{ext}"))).unwrap();
        assert_eq!(read("mode").trim(), "600");
        assert!(!Path::new(read("path").trim()).exists(), "the outputs file outlived the hook");
        let pid: u32 = read("pid").trim().parse().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while crate::cancel::process_alive(pid) && !zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "the hook's child {pid} outlived the kill");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[tokio::test]
    async fn a_timeout_kills_the_hooks_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let script = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
        let result = run_hook(&sh(&script), Duration::from_millis(500), dir.path()).await;
        assert!(matches!(result, Err(CommandHookError::Timeout { .. })), "{result:?}");
        let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while crate::cancel::process_alive(pid) && !zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "the hook's child {pid} outlived its timeout");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn zombie(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
    }
}
