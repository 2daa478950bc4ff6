use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// Two independent branches: `a -> b`, and `c` alone; `d` (kubernetes phase) after `b`.
pub(crate) const BRANCHES: &str = r#"
description = "two branches"
[[project]]
path = "a"
phase = "infrastructure"
[[project]]
path = "b"
phase = "infrastructure"
depends_on = ["a"]
[[project]]
path = "c"
phase = "infrastructure"
[[project]]
path = "d"
phase = "kubernetes"
depends_on = ["b"]
"#;

/// A throwaway repository: providers, projects, config files, and a way to run `runner` in it.
pub(crate) struct Workspace {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

/// `kill(2)` through rustix: signal `number` (0 only asks whether the process exists) to `pid`,
/// or to the process group `-pid` when negative. 0 when delivered, -1 otherwise.
pub(crate) fn kill(pid: i32, number: i32) -> i32 {
    use rustix::process::{Pid, Signal};
    let Some(target) = Pid::from_raw(pid.abs()) else { return -1 };
    let signal = match number {
        0 => return if rustix::process::test_kill_process(target).is_ok() { 0 } else { -1 },
        2 => Signal::INT,
        9 => Signal::KILL,
        15 => Signal::TERM,
        other => panic!("no test sends signal {other}"),
    };
    let sent = if pid < 0 {
        rustix::process::kill_process_group(target, signal)
    } else {
        rustix::process::kill_process(target, signal)
    };
    if sent.is_ok() {
        0
    } else {
        -1
    }
}

/// A named pipe at `path`: whoever reads it waits until a test writes.
pub(crate) fn make_fifo(path: &Path) {
    rustix::fs::mkfifoat(rustix::fs::CWD, path, rustix::fs::Mode::from_raw_mode(0o600)).expect("a named pipe");
}

/// A CI log may show only the lines before a failing test's `FAILED` line, never the harness's
/// `failures:` section at the end. So the end of each panic's message is also written to the real
/// stderr (which the harness does not capture) the moment it happens; the usual report follows.
pub(crate) fn report_failures_at_once() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            let lines: Vec<&str> = message.lines().collect();
            let tail = &lines[lines.len().saturating_sub(60)..];
            let thread = std::thread::current();
            let mut text = format!(
                "\n==== {} panicked at {}: the last {} of {} lines of its message\n",
                thread.name().unwrap_or("a test thread"),
                info.location().map_or_else(String::new, ToString::to_string),
                tail.len(),
                lines.len()
            );
            for line in tail {
                text.push_str(&format!("| {}\n", line.chars().take(400).collect::<String>()));
            }
            let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
            previous(info);
        }));
    });
}

impl Workspace {
    pub(crate) fn new() -> Self {
        report_failures_at_once();
        let dir = tempfile::tempdir().expect("temp dir");
        for folder in ["providers", "projects", "config/pulumi"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        }
        Self { dir, env: Vec::new() }
    }

    /// A workspace that runs the real `pulumi` on a file backend and a `HOME` of its own.
    pub(crate) fn with_real_pulumi() -> Self {
        let mut workspace = Workspace::new();
        let (backend, home) = (workspace.path(".state"), workspace.path("home"));
        workspace
            .set_env("PATH", path_with(&real_pulumi_dir()))
            .set_env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
            .set_env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
            .set_env("HOME", home.display().to_string());
        workspace
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub(crate) fn file(&self, relative: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    pub(crate) fn provider(&self, name: &str, toml: &str) -> &Self {
        self.file(&format!("providers/{name}.toml"), toml)
    }

    /// A project folder with a minimal `Pulumi.yaml` (a YAML program with no resources).
    pub(crate) fn project(&self, path: &str) -> &Self {
        let name = path.replace('/', "-");
        self.file(&format!("projects/{path}/Pulumi.yaml"), format!("name: {name}\nruntime: yaml\n"))
    }

    pub(crate) fn env_file(&self, text: &str) -> &Self {
        self.file("config/pulumi/environment", text)
    }

    pub(crate) fn stack_file(&self, stack: &str, text: &str) -> &Self {
        self.file(&format!("config/pulumi/Pulumi.{stack}.yaml"), text)
    }

    pub(crate) fn set_env(&mut self, key: &str, value: impl Into<String>) -> &mut Self {
        self.env.push((key.to_string(), value.into()));
        self
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        Command::from_std(self.std_command(args))
    }

    /// For tests that need the child itself (to signal it).
    pub(crate) fn std_command(&self, args: &[&str]) -> std::process::Command {
        let mut command = hermetic_runner(self.root(), args);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// `runner ARGS` started in the background, its output dropped: a run another step of the
    /// test interrupts, kills or races.
    pub(crate) fn spawn_quiet(&self, args: &[&str]) -> std::process::Child {
        self.std_command(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("runner starts")
    }

    pub(crate) fn run(&self, args: &[&str]) -> RunOutput {
        RunOutput(self.command(args).output().expect("runner starts"))
    }

    /// Every file under `dir`, relative, sorted: to prove a command wrote nothing.
    pub(crate) fn listing(&self) -> Vec<String> {
        let mut files = Vec::new();
        collect(self.root(), self.root(), &mut files);
        files.sort();
        files
    }
}

/// `runner ARGS` run in `dir`, with `dir/home` as `HOME`: never the developer's home,
/// kubeconfig, Pulumi build cache, backend or CI settings; no colour, no terminal width.
pub(crate) fn hermetic_runner(dir: &Path, args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("runner"));
    command
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", dir.join("home"))
        .env_remove("KUBECONFIG")
        .env_remove("COLUMNS")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("RUNNER_CACHE_DIR")
        .env_remove("CI")
        .env_remove("PULUMI_BACKEND_URL")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(std::process::Stdio::null());
    // The developer's own cloud sign-in is never what a test reads.
    for credential in
        ["GOOGLE_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG"]
    {
        command.env_remove(credential);
    }
    command
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}

pub(crate) struct RunOutput(pub Output);

impl RunOutput {
    pub(crate) fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }

    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    #[track_caller]
    pub(crate) fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code(), code, "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout(), self.stderr());
        self
    }

    #[track_caller]
    pub(crate) fn expect_stdout_contains(&self, needle: &str) -> &Self {
        assert!(
            self.stdout().contains(needle),
            "stdout lacks {needle:?}:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }

    #[track_caller]
    pub(crate) fn expect_stderr_lacks(&self, needle: &str) -> &Self {
        assert!(!self.stderr().contains(needle), "stderr has {needle:?}:\n{}", self.stderr());
        self
    }

    #[track_caller]
    pub(crate) fn expect_stderr_contains(&self, needle: &str) -> &Self {
        assert!(self.stderr().contains(needle), "stderr lacks {needle:?}:\n{}", self.stderr());
        self
    }
}

/// The repository this test binary was built from, for the shipped providers and projects.
pub(crate) fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real `pulumi` in the workspace's `projects/<project>`, on the file backend `backend`, with
/// the passphrase and HOME of `Workspace::with_real_pulumi`: what Pulumi itself says of a stack.
pub(crate) fn real_pulumi_in(workspace: &Workspace, project: &str, backend: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(real_pulumi_dir().join("pulumi"));
    command
        .current_dir(workspace.path(&format!("projects/{project}")))
        .env("PULUMI_BACKEND_URL", format!("file://{}", backend.display()))
        .env("PULUMI_CONFIG_PASSPHRASE", "integration-test-passphrase")
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .env("HOME", workspace.path("home"));
    command
}

/// The folder holding the real `pulumi` and `pulumi-language-yaml`. Tests against the real CLI
/// fail (never skip) without it: `.ci/run` installs it.
pub(crate) fn real_pulumi_dir() -> PathBuf {
    needs_external("the real `pulumi`");
    if let Ok(dir) = std::env::var("RUNNER_TEST_PULUMI_DIR") {
        return PathBuf::from(dir);
    }
    let pulumi = which::which("pulumi")
        .expect("the real `pulumi` must be on PATH: run `scripts/install-pulumi.sh` (see README)");
    let dir = pulumi.parent().unwrap().to_path_buf();
    assert!(
        dir.join("pulumi-language-yaml").exists(),
        "`pulumi-language-yaml` must sit next to `{}`",
        pulumi.display()
    );
    dir
}

/// The test double, first on PATH.
pub(crate) fn fake_pulumi_dir() -> PathBuf {
    repository().join("tests/support/fake-pulumi")
}

pub(crate) fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

/// Copies a folder of the repository into the workspace (providers, projects, config examples).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Builds the test resource provider `pulumi-resource-tokenauth` (Go, against the pinned
/// Pulumi SDK) once into `target/test-plugins/`, and returns its folder.
pub(crate) fn tokenauth_plugin_dir() -> PathBuf {
    needs_external("Go");
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let source = repository().join("tests/support/tokenauth-provider");
            let dir = repository().join("target/test-plugins");
            let binary = dir.join("pulumi-resource-tokenauth");
            let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
            let fresh = modified(&binary)
                .is_some_and(|built| modified(&source.join("main.go")).is_some_and(|src| src <= built));
            if !fresh {
                let status = std::process::Command::new("go")
                    .args(["build", "-o"])
                    .arg(&binary)
                    .arg(".")
                    .current_dir(&source)
                    .env("GOFLAGS", "-mod=mod")
                    .status()
                    .expect("`go` is needed to build the test provider");
                assert!(status.success(), "building pulumi-resource-tokenauth failed");
            }
            dir
        })
        .clone()
}

impl Workspace {
    /// A workspace whose `pulumi` is the test double, with its state kept in `fake-state/` and
    /// its behaviour scripted by `fake-script.json` (see `tests/support/fake-pulumi/README.md`).
    pub(crate) fn with_fake_pulumi(provider: &str, projects: &[&str], script: &str) -> Self {
        let mut workspace = Workspace::new();
        workspace.provider("demo", provider);
        for project in projects {
            workspace.project(project);
        }
        workspace.file("fake-script.json", script);
        let (state, script_path) = (workspace.path("fake-state"), workspace.path("fake-script.json"));
        workspace
            .set_env("PATH", path_with(&fake_pulumi_dir()))
            .set_env("FAKE_PULUMI_SCRIPT", script_path.display().to_string())
            .set_env("FAKE_PULUMI_STATE", state.display().to_string())
            .set_env("PULUMI_CONFIG_PASSPHRASE", "fake-passphrase");
        workspace
    }

    /// `runner ARGS` in a pseudo-terminal (`tests/support/drive-pty.py`) answering `steps`, with
    /// this workspace's environment (its `pulumi`, real or the test double), an `xterm`, its own
    /// `HOME`, and colour as the caller leaves it.
    pub(crate) fn in_a_terminal(&self, steps: &str, args: &[&str]) -> std::process::Command {
        self.file("pty-script.json", steps);
        let mut command = std::process::Command::new("python3");
        command
            .arg(repository().join("tests/support/drive-pty.py"))
            .arg(self.path("pty-script.json"))
            .arg("--")
            .arg(assert_cmd::cargo::cargo_bin("runner"))
            .args(args)
            .current_dir(self.root())
            .env("HOME", self.path("home"))
            .env("TERM", "xterm")
            .env_remove("CI")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("PULUMI_BACKEND_URL");
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// Every invocation the test double recorded: a `start` and an `end` line each.
    /// The fake `pulumi`'s `start` and `end` line of each invocation (its marks left out).
    pub(crate) fn fake_invocations(&self) -> Vec<serde_json::Value> {
        let lines = self.fake_log().into_iter();
        lines.filter(|line| line["event"] == "start" || line["event"] == "end").collect()
    }

    /// Every line the fake `pulumi` logged, its marks included.
    fn fake_log(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.path("fake-state/invocations.jsonl")).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    }

    /// Waits (at most 60 s) until the fake `pulumi` marked `event` for `op` of `project` (any
    /// project when `None`): `working` once it runs with its script in force, so a signal sent
    /// now meets the behaviour the test scripted, with no pause guessed for a loaded machine.
    pub(crate) fn wait_for_fake_mark(&self, project: Option<&str>, op: &str, event: &str) -> serde_json::Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let found = self.fake_log().into_iter().find(|line| {
                line["event"] == event && line["op"] == op && project.is_none_or(|project| line["project"] == project)
            });
            if let Some(line) = found {
                return line;
            }
            assert!(std::time::Instant::now() < deadline, "the fake `pulumi {op}` never marked `{event}`");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Tests that need a program from outside the repository (the real `pulumi`, Go, the
/// kube-apiserver, versitygw, chromium, graphviz, tmux, zsh, fish, the CI engines) are named `ext_...`, so
/// `cargo test --test integration -- --skip ::ext_` is the fast loop. Every helper that finds
/// such a program calls this, which keeps the rule true as tests are added.
pub(crate) fn needs_external(program: &str) {
    let thread = std::thread::current();
    // A helper thread of a test, or the main thread with one test thread: its test was checked.
    let Some(name) = thread.name().filter(|name| *name != "main") else { return };
    let test = name.rsplit("::").next().unwrap_or(name);
    if test.starts_with("ext_") {
        return;
    }
    if let Some(report) = std::env::var_os("RUNNER_EXT_REPORT") {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(report).unwrap();
        writeln!(file, "{name}").unwrap();
        return;
    }
    panic!("`{name}` needs {program}: name it `ext_...` so `--skip ::ext_` leaves it out (DEVELOPERS.md)");
}

/// The test suite's stand-in for the shipped `local` provider: the same graph of Pulumi YAML
/// projects, each a `pulumi:index:Stash`, so the fast tests need no cluster and no plugin. Holds
/// `providers/local.toml`, `projects/local/` and `config/pulumi/environment.example`.
pub(crate) fn stash_local() -> PathBuf {
    repository().join("tests/fixtures/stash-local")
}
