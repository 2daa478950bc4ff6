//! What the binary prints, stated whole: `runner_snapshot!` runs `runner` and records its exit
//! code, stdout and stderr as one insta snapshot (uv's `uv_snapshot!` is the model), after
//! `Redactions` replaced everything that differs between runs and machines: the temporary
//! workspace, the home folders, the repository, run ids, times, durations, pids, the host name
//! and versions. A lost hint, an extra line or a changed word then fails the test.
//!
//! Review a new or changed snapshot like code: `cargo insta review`, or run the test with
//! `INSTA_UPDATE=always` and read `git diff tests/integration/snapshots/`.

use std::path::Path;
use std::process::{Command, Output};

use regex::{Captures, Regex};

use crate::support::{repository, Workspace};

/// Runs a `std::process::Command` (from `Workspace::std_command`) and asserts its exit code,
/// stdout and stderr, redacted by `Redactions`, as one snapshot named after the test (or `name`,
/// for a test with several). Evaluates to the `Output`, for checks beside the snapshot.
macro_rules! runner_snapshot {
    ($redactions:expr, $command:expr) => {{
        let (text, description, output) = $crate::snapshot::run_and_format($command, &$redactions);
        $crate::snapshot::settings(description).bind(|| ::insta::assert_snapshot!(text));
        output
    }};
    ($name:expr, $redactions:expr, $command:expr) => {{
        let (text, description, output) = $crate::snapshot::run_and_format($command, &$redactions);
        $crate::snapshot::settings(description).bind(|| ::insta::assert_snapshot!($name, text));
        output
    }};
}
pub(crate) use runner_snapshot;

/// The snapshot's header names the command line instead of the Rust expression.
pub(crate) fn settings(description: String) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_description(description);
    settings.set_omit_expression(true);
    settings
}

/// Runs `command`; the snapshot text, the command line it ran (redacted) and the raw output.
pub(crate) fn run_and_format(
    mut command: impl std::borrow::BorrowMut<Command>,
    redactions: &Redactions,
) -> (String, String, Output) {
    let command = command.borrow_mut();
    let args: Vec<String> = command.get_args().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let description = redactions.apply(&format!("runner {}", args.join(" ")));
    let output = command.output().expect("runner starts");
    (format_output(&output, redactions), description, output)
}

/// Exit code, stdout and stderr, each redacted, as one text.
pub(crate) fn format_output(output: &Output, redactions: &Redactions) -> String {
    let code = output.status.code().map_or_else(|| format!("{:?}", output.status), |code| code.to_string());
    format!(
        "exit code: {code}\n----- stdout -----\n{}\n----- stderr -----\n{}\n",
        redactions.apply(&String::from_utf8_lossy(&output.stdout)).trim_end(),
        redactions.apply(&String::from_utf8_lossy(&output.stderr)).trim_end(),
    )
}

/// Ordered replacements: the most specific first (the runner's own path before the repository
/// holding it, the workspace's `HOME` before the workspace).
pub(crate) struct Redactions {
    rules: Vec<Rule>,
}

struct Rule {
    pattern: Regex,
    replacement: String,
    /// A value padded to a column (`runner status`) keeps the column's width: the replacement
    /// takes over the padding after it, and is padded as the widest value (`widest` characters)
    /// would be, so a column as wide as its widest value (`runner history`) lines up the same
    /// whether the pid in a run id has 4 or 7 digits. `None`: replaced as any rule.
    widest: Option<usize>,
}

impl Redactions {
    /// The redactions of a run in `workspace`.
    pub(crate) fn of(workspace: &Workspace) -> Self {
        Self::for_root(workspace.root())
    }

    /// The redactions of a run whose repository root (a temporary folder) is `root`.
    pub(crate) fn for_root(root: &Path) -> Self {
        let mut redactions = Redactions { rules: Vec::new() };
        redactions.literal_path(&assert_cmd::cargo::cargo_bin("runner"), "[RUNNER]");
        // The workspace's own `HOME` (see `Workspace::std_command`), then the workspace.
        redactions.literal_path(&root.join("home"), "[HOME]");
        redactions.literal_path(root, "[ROOT]");
        if let Some(pulumi) = real_pulumi_dir() {
            redactions.literal_path(&pulumi, "[PULUMI_BIN]");
        }
        redactions.literal_path(&repository(), "[REPO]");
        // Other temporary folders a test made (`tempfile::tempdir()`).
        let temp = std::env::temp_dir();
        for temp in [temp.canonicalize().unwrap_or_else(|_| temp.clone()), temp] {
            let prefix = regex::escape(temp.to_string_lossy().trim_end_matches('/'));
            redactions.rules.push(Rule::new(&format!(r"{prefix}/\.tmp[0-9A-Za-z]+"), "[TEMP]"));
        }
        if let Some(home) = std::env::var_os("HOME").filter(|home| Path::new(home).components().count() > 1) {
            redactions.literal_path(Path::new(&home), "[USER_HOME]");
        }
        redactions
            // `20261124T065235Z-26352`: the start in UTC and the pid.
            .width_keeping(r"\b\d{8}T\d{6}Z-\d+\b", "[RUN_ID]", RUN_ID_WIDEST)
            .width_keeping(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?", "[TIME]", 0)
            // `0.7s`, `1m 2s`, `1h 3m`, `120ms`; not a duration the user wrote in quotes (`"30s"`)
            // nor an example in backticks (`write e.g. \`30s\``): neither is measured.
            .with(r#"(^|[^"\w.`])(?:\d+h ?)?(?:\d+m ?)?\d+(?:\.\d+)?(?:ms|s|m|h)\b"#, "${1}[DURATION]")
            .with(r"\bpid (\d+)\b", "pid [PID]")
            .with(r#""pid": ?\d+"#, r#""pid": [PID]"#)
            // Pulumi's and its language host's versions (`v3.259.0`, `v1.38.1`).
            .with(r"\bv\d+\.\d+\.\d+(?:-(?:alpha|beta|rc|dev)[0-9A-Za-z.]*)?\b", "v[VERSION]")
            .host_name()
    }

    /// Adds a rule: every match of `pattern` becomes `replacement` (`$1` names a group).
    pub(crate) fn with(mut self, pattern: &str, replacement: &str) -> Self {
        self.rules.push(Rule::new(pattern, replacement));
        self
    }

    /// `runner history`'s run column is as wide as its run ids, whose pid has 4 to 7 digits: its
    /// header is padded as the widest run id would pad it, as the run ids are.
    pub(crate) fn history_table(self) -> Self {
        let header = format!("run{}started", " ".repeat(RUN_ID_WIDEST + 2 - "run".len()));
        self.with(r"^run +started", &header)
    }

    /// `status`'s header: its `run` column is as wide as the widest run id, which varies with the
    /// pid; the rows are redacted to the widest possible run id, so is the header.
    pub(crate) fn status_table(self) -> Self {
        let header = format!("run{}stack", " ".repeat(RUN_ID_WIDEST + 2 - "run".len()));
        self.with(r"run +stack", &header)
    }

    fn width_keeping(mut self, pattern: &str, replacement: &str, widest: usize) -> Self {
        self.rules.push(Rule { widest: Some(widest), ..Rule::new(&format!("(?:{pattern})( {{2,}})?"), replacement) });
        self
    }

    /// The path as printed, and as the kernel resolves it (a temporary folder behind a symlink).
    fn literal_path(&mut self, path: &Path, replacement: &str) {
        let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        for path in [resolved, path.to_path_buf()] {
            let text = path.to_string_lossy().trim_end_matches('/').to_string();
            if !text.is_empty() {
                self.rules.push(Rule::new(&format!(r"{}\b", regex::escape(&text)), replacement));
            }
        }
    }

    /// The host name where the runner prints one (`on \`host\``, `user@host`, JSON): a short
    /// host name (`vm`) would otherwise redact words.
    fn host_name(self) -> Self {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        if host.is_empty() {
            return self;
        }
        let host = regex::escape(&host);
        self.with(&format!(r#"([`@"]){host}([`"])"#), "${1}[HOST]${2}")
    }

    pub(crate) fn apply(&self, text: &str) -> String {
        let mut text = text.to_string();
        for rule in &self.rules {
            text = rule.apply(&text);
        }
        text
    }
}

impl Rule {
    fn new(pattern: &str, replacement: &str) -> Self {
        let pattern =
            Regex::new(&format!("(?m){pattern}")).unwrap_or_else(|err| panic!("redaction `{pattern}`: {err}"));
        Rule { pattern, replacement: replacement.to_string(), widest: None }
    }

    fn apply(&self, text: &str) -> String {
        let Some(widest) = self.widest else {
            return self.pattern.replace_all(text, self.replacement.as_str()).into_owned();
        };
        self.pattern
            .replace_all(text, |captures: &Captures| match captures.get(1) {
                Some(_) => {
                    let width = captures[0].chars().count().max(widest + 2).max(self.replacement.len() + 2);
                    format!("{:width$}", self.replacement)
                }
                None => self.replacement.clone(),
            })
            .into_owned()
    }
}

/// `YYYYMMDDTHHMMSSZ-` and a pid below 2^22 (Linux's `pid_max` limit): 7 digits.
pub(crate) const RUN_ID_WIDEST: usize = 17 + 7;

/// Where the real `pulumi` is, if this machine has it (the redaction is harmless without).
fn real_pulumi_dir() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("RUNNER_TEST_PULUMI_DIR") {
        return Some(dir.into());
    }
    which::which("pulumi").ok().and_then(|pulumi| pulumi.parent().map(Path::to_path_buf))
}

#[test]
fn redactions_replace_what_differs_between_runs_and_machines() {
    let root = tempfile::tempdir().unwrap();
    let redactions = Redactions::for_root(root.path());
    let text = format!(
        "{root}/providers/demo.toml:3: bad\nHOME={root}/home/.pulumi\nrun 20261124T065235Z-26352 took 0.7s, then 1m 2s\n\
         ended 2026-11-24T06:52:35Z and 2026-11-24T06:52:35.123+01:00\nheld by pid 4242 on `{host}` as `me@{host}`\n\
         write e.g. `\"30s\"` or `\"5m\"`\npulumi v3.259.0, v3.260.0-dev.0 in pulumi-v3.259.0-yaml-v1.38.1\n",
        root = root.path().display(),
        host = gethostname::gethostname().to_string_lossy(),
    );
    assert_eq!(
        redactions.apply(&text),
        "[ROOT]/providers/demo.toml:3: bad\nHOME=[HOME]/.pulumi\nrun [RUN_ID] took [DURATION], then [DURATION]\n\
         ended [TIME] and [TIME]\nheld by pid [PID] on `[HOST]` as `me@[HOST]`\n\
         write e.g. `\"30s\"` or `\"5m\"`\npulumi v[VERSION], v[VERSION] in pulumi-v[VERSION]-yaml-v[VERSION]\n"
    );
    // A run id padded to a column keeps the column, whatever the pid's digits, whether the
    // column is fixed (`status`) or as wide as its widest run id (`history`).
    let fixed = redactions.apply("20261124T065235Z-1        ok\n");
    assert_eq!(redactions.apply("20261124T065235Z-12       ok\n"), fixed);
    assert_eq!(redactions.apply("20261124T065235Z-1  ok\n"), fixed);
    assert_eq!(redactions.apply("20261124T065235Z-1234567  ok\n"), fixed);
    assert_eq!(fixed, format!("[RUN_ID]{}ok\n", " ".repeat(RUN_ID_WIDEST + 2 - 8)));
    let single = redactions.apply("20261124T065235Z-1234567 ok\n");
    assert_eq!(single, "[RUN_ID] ok\n", "a single space is no column padding");
}
