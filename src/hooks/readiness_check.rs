use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use super::GateAttemptError;
use crate::cancel::{CancelLevel, Cancellation, ChildEnd, ChildProcess};
use crate::provider::{GateCheck, ReadinessGate};

/// No single attempt may take longer than this, whatever the gate's own timeout.
const MAX_ATTEMPT: Duration = Duration::from_secs(30);
/// Every attempt gets at least this long, even the last one near the timeout: a check cut short
/// by the clock says nothing about readiness. A gate may overrun its timeout by this much.
const MIN_ATTEMPT: Duration = Duration::from_secs(2);
const MAX_BODY: usize = 1024 * 1024;

/// How a gate ended, with what its last attempt said: the explanation a timeout needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GateOutcome {
    pub passed: bool,
    pub attempts: u32,
    pub elapsed: Duration,
    pub last_attempt: String,
}

/// Tries the gate every `interval` until it passes, `timeout` runs out or the run is cancelled.
pub(crate) async fn wait_until_ready(
    gate: &ReadinessGate,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancellation: &Cancellation,
) -> GateOutcome {
    let started = Instant::now();
    let mut attempts = 0;
    loop {
        attempts += 1;
        let remaining = gate.timeout.saturating_sub(started.elapsed());
        let budget = remaining.clamp(MIN_ATTEMPT, MAX_ATTEMPT);
        // A command hears the first Ctrl-C itself (SIGINT) and is dropped, its whole group killed,
        // on the second; a connection attempt has nobody to tell and is dropped on the first.
        let stop_at = match gate.check {
            GateCheck::Command(_) => CancelLevel::Kill,
            _ => CancelLevel::Graceful,
        };
        let mut stop = cancellation.subscribe();
        let result = tokio::select! {
            result = tokio::time::timeout(budget, attempt(&gate.check, cwd, env, cancellation)) => match result {
                Ok(result) => result,
                Err(_) => Err(GateAttemptError::NoAnswer(budget)),
            },
            _ = stop.wait_for(|level| *level >= stop_at) => Err(GateAttemptError::Cancelled),
        };
        let last_attempt = match result {
            Ok(()) => {
                return GateOutcome { passed: true, attempts, elapsed: started.elapsed(), last_attempt: String::new() }
            }
            Err(err) => crate::error::ErrorChain(&err).to_string(),
        };
        if started.elapsed() + gate.interval > gate.timeout {
            return GateOutcome { passed: false, attempts, elapsed: started.elapsed(), last_attempt };
        }
        let mut stop = cancellation.subscribe();
        tokio::select! {
            _ = tokio::time::sleep(gate.interval) => {}
            _ = stop.wait_for(|level| *level >= CancelLevel::Graceful) => {
                return GateOutcome { passed: false, attempts, elapsed: started.elapsed(), last_attempt: format!("cancelled; last attempt: {last_attempt}") };
            }
        }
    }
}

async fn attempt(
    check: &GateCheck,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    cancellation: &Cancellation,
) -> Result<(), GateAttemptError> {
    match check {
        GateCheck::Command(argv) => {
            let output = ChildProcess::new(&argv[0])
                .args(&argv[1..])
                .current_dir(cwd)
                .env_clear()
                .envs(env)
                .output(cancellation)
                .await;
            match output.end {
                ChildEnd::Exited(0) => return Ok(()),
                ChildEnd::SpawnFailed(reason) => return Err(GateAttemptError::NotStarted(reason)),
                _ => {}
            }
            let mut text = output.stderr_text().trim().to_string();
            if text.is_empty() {
                text = output.stdout_text().trim().to_string();
            }
            let last: String =
                text.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ");
            let code = match output.end {
                ChildEnd::Exited(code) => code.to_string(),
                _ => "none".into(),
            };
            Err(GateAttemptError::Exited { code, last })
        }
        GateCheck::Tcp(address) => {
            let connected = TcpStream::connect(address.as_str()).await;
            connected.map(|_| ()).map_err(|source| GateAttemptError::Connect { address: address.clone(), source })
        }
        GateCheck::Http { url, expect_body, ca_file } => {
            http_get(url, expect_body.as_deref(), ca_file.as_deref()).await
        }
        GateCheck::Kubernetes { object, context } => {
            super::kubernetes_gate::kubernetes_attempt(object, context.as_deref(), cwd, env, cancellation).await
        }
    }
}

/// One GET. Redirects are not followed (a health endpoint that redirects is not answering) and no
/// proxy is used: gates check endpoints the run just deployed, as the user's machine reaches them.
async fn http_get(url: &str, expect_body: Option<&str>, ca_file: Option<&Path>) -> Result<(), GateAttemptError> {
    let client = http_client(ca_file).await?;
    let mut response = client.get(url).send().await.map_err(|err| describe_http_error(url, err))?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|err| describe_http_error(url, err))? {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_BODY {
            body.truncate(MAX_BODY);
            break;
        }
    }
    let body = String::from_utf8_lossy(&body);
    if !status.is_success() {
        let body = body.trim().chars().take(200).collect();
        return Err(GateAttemptError::Status { status: status.as_u16(), body });
    }
    match expect_body {
        Some(expected) if !body.contains(expected) => {
            Err(GateAttemptError::BodyLacks { status: status.as_u16(), expected: expected.to_string() })
        }
        _ => Ok(()),
    }
}

/// The system's certificate authorities (`SSL_CERT_FILE`/`SSL_CERT_DIR` when set), plus those of
/// the gate's `ca_file`: read at each attempt, since an earlier project may be what writes it.
async fn http_client(ca_file: Option<&Path>) -> Result<reqwest::Client, GateAttemptError> {
    let mut builder =
        crate::http::http_client_builder().user_agent("runner").redirect(reqwest::redirect::Policy::none()).no_proxy();
    if let Some(path) = ca_file {
        let pem = tokio::fs::read(path)
            .await
            .map_err(|source| GateAttemptError::CaFileUnreadable { path: path.to_path_buf(), source })?;
        let certificates = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| GateAttemptError::CaFileNotPem { path: path.to_path_buf(), source: Some(err) })?;
        if certificates.is_empty() {
            return Err(GateAttemptError::CaFileNotPem { path: path.to_path_buf(), source: None });
        }
        builder = builder.tls_certs_merge(certificates);
    }
    builder.build().map_err(|err| GateAttemptError::Client(crate::error::ErrorChain(&err).to_string()))
}

/// reqwest's own message is "error sending request"; the cause (refused, certificate unknown)
/// is further down the chain.
fn describe_http_error(url: &str, err: reqwest::Error) -> GateAttemptError {
    GateAttemptError::Request { url: url.to_string(), detail: crate::error::ErrorChain(&err.without_url()).to_string() }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn gate(check: GateCheck, timeout_ms: u64) -> ReadinessGate {
        ReadinessGate { check, timeout: Duration::from_millis(timeout_ms), interval: Duration::from_millis(50) }
    }

    #[tokio::test]
    async fn command_gate_reports_the_last_attempt() {
        let outcome = wait_until_ready(
            &gate(GateCommand::failing(), 300),
            Path::new("."),
            &std::env::vars().collect(),
            &Cancellation::new(),
        )
        .await;
        assert!(!outcome.passed);
        assert!(outcome.attempts >= 2);
        assert!(outcome.last_attempt.contains("exit code 3: not yet"), "{}", outcome.last_attempt);
    }

    #[tokio::test]
    async fn a_timed_out_command_gate_takes_its_whole_process_group_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        // The attempt never ends by itself: its shell waits on a background grandchild.
        let script = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
        let hanging = GateCheck::Command(vec!["sh".into(), "-c".into(), script]);
        let outcome =
            wait_until_ready(&gate(hanging, 500), dir.path(), &std::env::vars().collect(), &Cancellation::new()).await;
        assert!(!outcome.passed, "{outcome:?}");
        let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while crate::cancel::process_alive(pid) && !zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "the gate's grandchild {pid} outlived its timeout");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn zombie(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
    }

    struct GateCommand;

    impl GateCommand {
        fn failing() -> GateCheck {
            GateCheck::Command(vec!["sh".into(), "-c".into(), "echo not yet >&2; exit 3".into()])
        }
    }

    #[tokio::test]
    async fn tcp_gate_passes_on_an_open_port() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let outcome = wait_until_ready(
            &gate(GateCheck::Tcp(address), 1000),
            Path::new("."),
            &BTreeMap::new(),
            &Cancellation::new(),
        )
        .await;
        assert!(outcome.passed);
    }

    #[tokio::test]
    async fn http_gate_checks_status_and_body() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/healthz", listener.local_addr().unwrap());
        tokio::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut buffer = [0u8; 1024];
                let _ = socket.read(&mut buffer).await;
                let _ = socket.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nhealthy").await;
            }
        });
        let passing = ReadinessGate {
            check: GateCheck::Http { url: url.clone(), expect_body: Some("healthy".into()), ca_file: None },
            timeout: Duration::from_secs(2),
            interval: Duration::from_millis(50),
        };
        assert!(wait_until_ready(&passing, Path::new("."), &BTreeMap::new(), &Cancellation::new()).await.passed);
        let wrong_body = ReadinessGate {
            check: GateCheck::Http { url, expect_body: Some("ready".into()), ca_file: None },
            timeout: Duration::from_millis(200),
            interval: Duration::from_millis(50),
        };
        let outcome = wait_until_ready(&wrong_body, Path::new("."), &BTreeMap::new(), &Cancellation::new()).await;
        assert!(!outcome.passed && outcome.last_attempt.contains("lacks `ready`"), "{outcome:?}");
    }
}

#[cfg(test)]
#[path = "../../tests/support/test_servers.rs"]
mod test_servers;

#[cfg(test)]
#[path = "readiness_http_tests.rs"]
mod http_tests;
