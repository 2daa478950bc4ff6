use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// Why a `command` hook failed; the project then counts as failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandHookError {
    #[error("cannot start `{program}`: {reason}")]
    Spawn { program: String, reason: String },
    #[error("`{program}` timed out after {}", humantime::format_duration(*.timeout))]
    Timeout { program: String, timeout: Duration },
    #[error("`{program}` failed with {status}{}", tail_text(.stderr_tail))]
    Failed { program: String, status: String, stderr_tail: String },
    #[error("cannot write the outputs file: {0}")]
    Outputs(String),
}

fn tail_text(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {tail}")
    }
}

/// Runs `argv` directly (no shell, so no interpolation), with the project's outputs in a JSON
/// file named by `RUNNER_OUTPUTS_FILE` and as `RUNNER_OUTPUT_<NAME>` variables.
pub async fn run_command_hook(
    argv: &[String],
    timeout: Duration,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    outputs: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), CommandHookError> {
    let program = argv.first().cloned().unwrap_or_default();
    // A private temporary folder: the outputs may hold secrets and must not land in `.runner/`.
    let dir = tempfile::Builder::new()
        .prefix("runner-hook-")
        .tempdir()
        .map_err(|err| CommandHookError::Outputs(err.to_string()))?;
    let outputs_file = dir.path().join("outputs.json");
    let json = serde_json::to_vec_pretty(outputs).map_err(|err| CommandHookError::Outputs(err.to_string()))?;
    write_private(&outputs_file, &json).map_err(|err| CommandHookError::Outputs(err.to_string()))?;

    let mut command = Command::new(&program);
    command
        .args(&argv[1..])
        .current_dir(cwd)
        .env_clear()
        .envs(env)
        .env("RUNNER_OUTPUTS_FILE", &outputs_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for (name, value) in outputs {
        let text = match value {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        command.env(format!("RUNNER_OUTPUT_{}", env_name(name)), text);
    }
    let child =
        command.spawn().map_err(|err| CommandHookError::Spawn { program: program.clone(), reason: err.to_string() })?;
    let group = super::ProcessGroupGuard::new(child.id());
    let output = match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(output)) => {
            group.disarm();
            output
        }
        Ok(Err(err)) => return Err(CommandHookError::Spawn { program, reason: err.to_string() }),
        Err(_) => return Err(CommandHookError::Timeout { program, timeout }),
    };
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr_tail =
        stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default().chars().take(300).collect();
    let status = match output.status.code() {
        Some(code) => format!("exit code {code}"),
        None => "a signal".to_string(),
    };
    Err(CommandHookError::Failed { program, status, stderr_tail })
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

    fn outputs() -> serde_json::Map<String, serde_json::Value> {
        serde_json::from_str(r#"{"cluster-name":"demo","count":3}"#).unwrap()
    }

    fn env() -> BTreeMap<String, String> {
        std::env::vars().collect()
    }

    #[tokio::test]
    async fn passes_outputs_as_file_and_variables() {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "test \"$RUNNER_OUTPUT_CLUSTER_NAME\" = demo && test \"$RUNNER_OUTPUT_COUNT\" = 3 && cp \"$RUNNER_OUTPUTS_FILE\" {}/copy.json",
            dir.path().display()
        );
        let argv = vec!["sh".to_string(), "-c".to_string(), script];
        run_command_hook(&argv, Duration::from_secs(10), dir.path(), &env(), &outputs()).await.unwrap();
        let copied: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("copy.json")).unwrap()).unwrap();
        assert_eq!(copied["cluster-name"], "demo");
    }

    #[tokio::test]
    async fn arguments_are_not_interpolated() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("should-not-exist");
        let argv = vec!["echo".to_string(), format!("$(touch {})", marker.display())];
        run_command_hook(&argv, Duration::from_secs(10), dir.path(), &env(), &outputs()).await.unwrap();
        assert!(!marker.exists());
    }

    #[tokio::test]
    async fn non_zero_exit_fails_with_stderr() {
        let argv = vec!["sh".to_string(), "-c".to_string(), "echo nope >&2; exit 3".to_string()];
        let err =
            run_command_hook(&argv, Duration::from_secs(10), Path::new("."), &env(), &outputs()).await.unwrap_err();
        assert_eq!(err.to_string(), "`sh` failed with exit code 3: nope");
    }

    #[tokio::test]
    async fn a_slow_command_times_out() {
        let argv = vec!["sleep".to_string(), "5".to_string()];
        let err =
            run_command_hook(&argv, Duration::from_millis(200), Path::new("."), &env(), &outputs()).await.unwrap_err();
        assert!(matches!(err, CommandHookError::Timeout { .. }));
    }

    #[tokio::test]
    async fn a_timeout_kills_the_hooks_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let script = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
        let argv = vec!["sh".to_string(), "-c".to_string(), script];
        let result = run_command_hook(&argv, Duration::from_millis(500), dir.path(), &env(), &outputs()).await;
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
