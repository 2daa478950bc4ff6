//! The hostile corpus: every folder of `tests/hostile/` is a small repository overlay holding one
//! malformed input, and its `expect.toml` says how `runner` must refuse it: one `error: ` naming
//! the file (and the line, where there is one), exit code 2, no panic, nothing on stdout, and
//! nothing written; where `expect.toml` has `stderr`, stderr is exactly that (redacted as
//! snapshots are: `[ROOT]` for the repository). `RUNNER_HOSTILE_UPDATE=1` writes each case's
//! `stderr` into its `expect.toml`, to review with `git diff tests/hostile/`. See
//! `tests/hostile/README.md` for the format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde::Deserialize;

use crate::snapshot::Redactions;
use crate::support::{repository, Workspace};

/// The issue asks for at least this many malformed inputs.
const MIN_CASES: usize = 40;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expectation {
    /// What is wrong with the input, for whoever reads a failure.
    about: String,
    args: Vec<String>,
    /// Project folders the case needs, each created with a minimal `Pulumi.yaml`.
    #[serde(default)]
    projects: Vec<String>,
    /// Each must appear in stderr: the file, the line, the gist of the message.
    #[serde(default)]
    stderr_contains: Vec<String>,
    /// The whole of stderr, redacted (`[ROOT]`), without its final newline.
    stderr: Option<String>,
    /// Files too large to commit, made at run time.
    #[serde(default)]
    generate: Vec<GeneratedFile>,
}

/// `prefix`, then `pattern` repeated, then `suffix`. With `bytes`, the repetitions are cut to
/// exactly that many bytes; with `count`, the pattern is written `count` times with `{n}`
/// replaced by the repetition's number (0, 1, ...), for inputs that need distinct names.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedFile {
    path: String,
    #[serde(default)]
    prefix: String,
    pattern: String,
    bytes: Option<usize>,
    count: Option<usize>,
    #[serde(default)]
    suffix: String,
}

impl GeneratedFile {
    fn contents(&self) -> Result<Vec<u8>, String> {
        if self.pattern.is_empty() {
            return Err(format!("`pattern` of `{}` is empty", self.path));
        }
        let body = match (self.bytes, self.count) {
            (Some(bytes), None) => {
                let mut body = self.pattern.repeat(bytes / self.pattern.len() + 1);
                body.truncate(bytes);
                body
            }
            (None, Some(count)) => (0..count).map(|n| self.pattern.replace("{n}", &n.to_string())).collect(),
            _ => return Err(format!("`{}` needs exactly one of `bytes` and `count`", self.path)),
        };
        Ok([self.prefix.as_bytes(), body.as_bytes(), self.suffix.as_bytes()].concat())
    }
}

fn corpus_dir() -> PathBuf {
    repository().join("tests/hostile")
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/hostile exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every file under `dir` except the case's own `expect.toml`, relative to `dir`.
fn overlay_files(dir: &Path, under: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(under).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            overlay_files(dir, &path, out);
        } else {
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            if relative != Path::new("expect.toml") {
                out.push(relative);
            }
        }
    }
}

/// Every file and folder under the workspace with each file's size, modification time and, when
/// small, bytes: a run that creates a folder (`.runner/`) or a file, or rewrites one (stack
/// defaults), changes it. Large generated files are not read back, to keep the test fast.
fn snapshot(root: &Path) -> BTreeMap<String, (u64, Option<SystemTime>, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u64, Option<SystemTime>, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().display().to_string();
            let metadata = std::fs::metadata(&path).unwrap();
            if metadata.is_dir() {
                out.insert(format!("{relative}/"), (0, None, Vec::new()));
                walk(root, &path, out);
            } else {
                let bytes = if metadata.len() <= 1024 * 1024 { std::fs::read(&path).unwrap() } else { Vec::new() };
                out.insert(relative, (metadata.len(), metadata.modified().ok(), bytes));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Runs one case; `Err` describes everything that was wrong with the outcome.
fn run_case(dir: &Path) -> Result<(), String> {
    let expect_text =
        std::fs::read_to_string(dir.join("expect.toml")).map_err(|err| format!("cannot read `expect.toml`: {err}"))?;
    let expect: Expectation = toml::from_str(&expect_text).map_err(|err| format!("bad `expect.toml`: {err}"))?;
    if expect.stderr_contains.is_empty() && expect.stderr.is_none() {
        return Err("neither `stderr` nor `stderr_contains`: say what the error must be".into());
    }

    let workspace = Workspace::new();
    let mut files = Vec::new();
    overlay_files(dir, dir, &mut files);
    for relative in &files {
        workspace.file(&relative.to_string_lossy(), std::fs::read(dir.join(relative)).unwrap());
    }
    for project in &expect.projects {
        workspace.project(project);
    }
    for generated in &expect.generate {
        workspace.file(&generated.path, generated.contents()?);
    }

    let before = snapshot(workspace.root());
    let listed = workspace.listing();
    let args: Vec<&str> = expect.args.iter().map(String::as_str).collect();
    let output = workspace.run(&args);
    let stderr = output.stderr();
    let stdout = output.stdout();

    let mut problems = Vec::new();
    if output.code() != 2 {
        problems.push(format!("exit code {} instead of 2", output.code()));
    }
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        problems.push("it panicked".into());
    }
    if !stderr.starts_with("error: ") {
        problems.push("stderr does not start with `error: `".into());
    }
    let errors = stderr.lines().filter(|line| line.starts_with("error")).count();
    if errors != 1 {
        problems.push(format!("{errors} error lines instead of one"));
    }
    let redacted = Redactions::of(&workspace).apply(&stderr);
    let redacted = redacted.trim_end();
    if updating() {
        write_expected_stderr(dir, &expect_text, redacted)?;
    } else if let Some(expected) = &expect.stderr {
        if expected.trim_end() != redacted {
            problems.push(format!(
                "stderr is not as stated in `expect.toml`:\n{}",
                line_diff(expected.trim_end(), redacted)
            ));
        }
    }
    for needle in &expect.stderr_contains {
        if !stderr.contains(needle.as_str()) {
            problems.push(format!("stderr lacks {needle:?}"));
        }
    }
    if !stdout.is_empty() {
        problems.push(format!("stdout is not empty: {stdout:?}"));
    }
    let after = snapshot(workspace.root());
    if after != before || workspace.listing() != listed {
        let added: Vec<&String> = after.keys().filter(|key| !before.contains_key(*key)).collect();
        let changed: Vec<&String> = after
            .iter()
            .filter(|(key, state)| before.get(*key).is_some_and(|old| old != *state))
            .map(|(k, _)| k)
            .collect();
        let removed: Vec<&String> = before.keys().filter(|key| !after.contains_key(*key)).collect();
        problems.push(format!("it wrote: added {added:?}, changed {changed:?}, removed {removed:?}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let shown: String = stderr.chars().take(2000).collect();
        Err(format!(
            "({}) {}\n    stderr: {}",
            expect.about,
            problems.join("; "),
            shown.trim_end().replace('\n', "\n            ")
        ))
    }
}

fn updating() -> bool {
    std::env::var_os("RUNNER_HOSTILE_UPDATE").is_some_and(|value| value == "1")
}

/// The lines that differ, `-` expected and `+` actual, with their numbers.
fn line_diff(expected: &str, actual: &str) -> String {
    let (expected, actual): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    for number in 0..expected.len().max(actual.len()) {
        let (old, new) = (expected.get(number), actual.get(number));
        if old != new {
            if let Some(line) = old {
                out.push_str(&format!("    -{}: {line}\n", number + 1));
            }
            if let Some(line) = new {
                out.push_str(&format!("    +{}: {line}\n", number + 1));
            }
        }
    }
    out
}

/// Puts `stderr = '''...'''` into the case's `expect.toml`, replacing the one there or before the
/// first table, and drops `stderr_contains`, which the whole text makes redundant. A text a
/// TOML literal string cannot hold (control characters, `'''`) is left to `stderr_contains`.
fn write_expected_stderr(dir: &Path, expect_text: &str, stderr: &str) -> Result<(), String> {
    if stderr.contains("'''") || stderr.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Ok(());
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut lines = expect_text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("stderr = '''") {
            lines.by_ref().find(|line| line.ends_with("'''"));
        } else if !line.starts_with("stderr_contains = ") {
            kept.push(line);
        }
    }
    let table = kept.iter().position(|line| line.starts_with('[')).unwrap_or(kept.len());
    let head = kept[..table].join("\n");
    let tail = kept[table..].join("\n");
    let text =
        format!("{}\nstderr = '''\n{stderr}\n'''\n{}{tail}", head.trim_end(), if tail.is_empty() { "" } else { "\n" });
    std::fs::write(dir.join("expect.toml"), format!("{}\n", text.trim_end())).map_err(|err| err.to_string())
}

#[test]
fn hostile_inputs_fail_cleanly_with_exit_2_and_write_nothing() {
    let dirs = case_dirs();
    assert!(
        dirs.len() >= MIN_CASES,
        "the hostile corpus has {} cases; the issue asks for at least {MIN_CASES}",
        dirs.len()
    );
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let started = Instant::now();
            let result = run_case(dir);
            println!("{name}: {:.2?}", started.elapsed());
            result.err().map(|problem| format!("{name}: {problem}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn hostile_generated_files_are_made_as_described() {
    let by_size = GeneratedFile {
        prefix: "a=".into(),
        pattern: "xyz".into(),
        bytes: Some(7),
        suffix: "\n".into(),
        ..GeneratedFile::default()
    };
    assert_eq!(by_size.contents().unwrap(), b"a=xyzxyzx\n");
    let by_count = GeneratedFile { pattern: "p{n},".into(), count: Some(3), ..GeneratedFile::default() };
    assert_eq!(by_count.contents().unwrap(), b"p0,p1,p2,");
    let both = GeneratedFile { pattern: "x".into(), count: Some(1), bytes: Some(1), ..GeneratedFile::default() };
    assert!(both.contents().is_err());
}
