//! A real Kubernetes API server (kube-apiserver + etcd, built by
//! `scripts/install-kube-test-servers.sh`) on loopback, for tests of `runner export pko`.

use crate::loopback_port::free_port;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kept in step with `scripts/install-kube-test-servers.sh`.
const BUILD: &str = "kube-v1.34.4-etcd-v3.6.16";

/// The folder holding `etcd` and `kube-apiserver`: `RUNNER_KUBE_TEST_BIN`, else the script's cache.
/// Tests fail (never skip) without them: `scripts/test.sh` builds them.
pub(crate) fn kube_bin_dir() -> PathBuf {
    crate::support::needs_external("the kube-apiserver");
    let dir = match std::env::var_os("RUNNER_KUBE_TEST_BIN") {
        Some(dir) => PathBuf::from(dir),
        None => cache_root().join(BUILD).join("bin"),
    };
    assert!(
        dir.join("kube-apiserver").is_file() && dir.join("etcd").is_file(),
        "`etcd` and `kube-apiserver` are missing from `{}`: run `scripts/install-kube-test-servers.sh`",
        dir.display()
    );
    dir
}

/// The cache root of the install scripts: `RUNNER_CACHE_DIR`, `XDG_CACHE_HOME/runner`, `~/.cache/runner`.
pub(crate) fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("RUNNER_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("runner");
    }
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/runner")
}

/// Stops the process when dropped, even when the test panics.
pub(crate) struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// etcd and kube-apiserver on loopback, with a kubeconfig holding a static admin token.
pub(crate) struct KubeApiServer {
    // Field order: the API server stops before etcd.
    _apiserver: ChildGuard,
    _etcd: ChildGuard,
    pub kubeconfig: PathBuf,
    pub dir: PathBuf,
}

fn run(program: &str, args: &[&str], dir: &Path) {
    let output = Command::new(program).args(args).current_dir(dir).output().expect("program starts");
    assert!(output.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

impl KubeApiServer {
    /// Starts both servers under `dir` and waits until the API server answers `/readyz`.
    pub(crate) fn start(dir: &Path) -> Self {
        let bin = kube_bin_dir();
        std::fs::create_dir_all(dir).unwrap();
        // Self-generated certificates: a CA, a serving certificate for 127.0.0.1, and the
        // service-account signing key the API server insists on.
        run(
            "openssl",
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=runner-test-ca",
            ],
            dir,
        );
        run(
            "openssl",
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=kube-apiserver",
            ],
            dir,
        );
        std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n").unwrap();
        run(
            "openssl",
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-days",
                "2",
                "-extfile",
                "san.ext",
            ],
            dir,
        );
        run("openssl", &["genrsa", "-out", "sa.key", "2048"], dir);
        run("openssl", &["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], dir);
        let token = "runner-test-admin-token";
        std::fs::write(dir.join("tokens.csv"), format!("{token},admin,admin,system:masters\n")).unwrap();

        let (client, peer, secure) = (free_port(), free_port(), free_port());
        let etcd_log = std::fs::File::create(dir.join("etcd.log")).unwrap();
        let etcd = Command::new(bin.join("etcd"))
            .args(["--name", "test", "--data-dir"])
            .arg(dir.join("etcd-data"))
            .arg(format!("--listen-client-urls=http://127.0.0.1:{client}"))
            .arg(format!("--advertise-client-urls=http://127.0.0.1:{client}"))
            .arg(format!("--listen-peer-urls=http://127.0.0.1:{peer}"))
            .arg(format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer}"))
            .arg(format!("--initial-cluster=test=http://127.0.0.1:{peer}"))
            .args(["--unsafe-no-fsync", "--log-level=warn"])
            .stdout(Stdio::null())
            .stderr(etcd_log)
            .spawn()
            .expect("etcd starts");
        let etcd = ChildGuard(etcd);
        let apiserver_log = std::fs::File::create(dir.join("kube-apiserver.log")).unwrap();
        let path = |name: &str| dir.join(name).display().to_string();
        let apiserver = Command::new(bin.join("kube-apiserver"))
            .arg(format!("--etcd-servers=http://127.0.0.1:{client}"))
            .arg(format!("--secure-port={secure}"))
            .args(["--bind-address=127.0.0.1", "--advertise-address=127.0.0.1"])
            .arg(format!("--tls-cert-file={}", path("server.crt")))
            .arg(format!("--tls-private-key-file={}", path("server.key")))
            .arg(format!("--token-auth-file={}", path("tokens.csv")))
            .arg(format!("--service-account-key-file={}", path("sa.pub")))
            .arg(format!("--service-account-signing-key-file={}", path("sa.key")))
            .arg(format!("--cert-dir={}", path("certs")))
            .args([
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-cluster-ip-range=10.96.0.0/16",
                "--authorization-mode=RBAC",
                "--enable-priority-and-fairness=false",
                "--v=0",
            ])
            .stdout(Stdio::null())
            .stderr(apiserver_log)
            .spawn()
            .expect("kube-apiserver starts");
        let apiserver = ChildGuard(apiserver);
        let kubeconfig = dir.join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: https://127.0.0.1:{secure}\n    certificate-authority: {}\nusers:\n- name: admin\n  user:\n    token: {token}\ncontexts:\n- name: test\n  context: {{cluster: test, user: admin}}\ncurrent-context: test\n",
                path("ca.crt")
            ),
        )
        .unwrap();
        let server = Self { _apiserver: apiserver, _etcd: etcd, kubeconfig, dir: dir.to_path_buf() };
        server.wait_ready(Duration::from_secs(180));
        server
    }

    fn wait_ready(&self, limit: Duration) {
        let start = Instant::now();
        loop {
            let output = self.kubectl_output(&["get", "--raw", "/readyz"], None);
            if output.status.success() {
                return;
            }
            let log = std::fs::read_to_string(self.dir.join("kube-apiserver.log")).unwrap_or_default();
            assert!(
                start.elapsed() < limit,
                "the API server was not ready within {limit:?}: {}\n--- kube-apiserver.log (end) ---\n{}",
                String::from_utf8_lossy(&output.stderr),
                &log[log.len().saturating_sub(3000)..]
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Polls `condition` every half second for up to three minutes (a loaded machine is slow).
    #[track_caller]
    pub(crate) fn wait_until(&self, what: &str, condition: impl Fn() -> bool) {
        let start = Instant::now();
        while !condition() {
            assert!(start.elapsed() < Duration::from_secs(180), "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    pub(crate) fn kubectl_output(&self, args: &[&str], stdin: Option<&str>) -> std::process::Output {
        let mut command = Command::new("kubectl");
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .env_remove("KUBECONFIG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = command.spawn().expect("kubectl must be on PATH (see README)");
        if let Some(text) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        child.wait_with_output().unwrap()
    }

    /// Runs kubectl and returns its stdout; panics with its stderr on failure.
    #[track_caller]
    pub(crate) fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> String {
        let output = self.kubectl_output(args, stdin);
        assert!(output.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}
