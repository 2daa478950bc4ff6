//! The files a git change touches, read with the `git` program.

use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::error::{Result, UserError};
use std::path::{Path, PathBuf};

/// Everything changed between a base commit and the working tree (commits, staged, unstaged,
/// untracked), as absolute paths.
#[derive(Debug, Clone)]
pub(crate) struct GitChanges {
    /// What was compared with, as printed: `origin/main (merge base 1a2b3c4d)`.
    pub described_base: String,
    /// The commit the working tree is compared with.
    pub base: String,
    pub toplevel: PathBuf,
    pub files: Vec<PathBuf>,
}

impl GitChanges {
    /// `since` empty: the merge base with the remote's default branch, else `HEAD~1`.
    pub(crate) fn since(repository: &Path, since: &str) -> Result<Self> {
        let toplevel = git(repository, &["rev-parse", "--show-toplevel"]).map_err(|err| match err {
            GitError::Missing => missing_git(),
            GitError::Failed(_) => UserError::Usage(format!(
                "`--affected` compares with git, but `{}` is not inside a git repository",
                repository.display()
            )),
        })?;
        let toplevel = PathBuf::from(toplevel.trim());
        let (reference, why) = if since.is_empty() { default_base(repository)? } else { (since.to_string(), None) };
        // `git diff REF...HEAD` compares with the merge base; the working tree adds what is uncommitted.
        let base = git(repository, &["merge-base", &reference, "HEAD"])
            .map_err(|err| match err {
                GitError::Missing => missing_git(),
                GitError::Failed(message) => UserError::Usage(format!(
                    "`--affected {reference}`: git cannot compare `{reference}` with `HEAD`: {}",
                    message.trim()
                )),
            })?
            .trim()
            .to_string();
        let short = &base[..base.len().min(10)];
        let described_base = match why {
            Some(why) => format!("`{reference}` ({why}; merge base {short})"),
            None => format!("`{reference}` (merge base {short})"),
        };
        let changed = git(repository, &["diff", "--name-only", "--no-renames", "-z", &base, "--"])
            .map_err(|err| git_failure(err, "git diff"))?;
        let untracked = git(repository, &["ls-files", "--others", "--exclude-standard", "-z", "--full-name"])
            .map_err(|err| git_failure(err, "git ls-files"))?;
        let mut files: Vec<PathBuf> = changed.split('\0').filter(|f| !f.is_empty()).map(|f| toplevel.join(f)).collect();
        // `--full-name`: relative to the top level, like `git diff`.
        files.extend(untracked.split('\0').filter(|f| !f.is_empty()).map(|f| toplevel.join(f)));
        files.sort();
        files.dedup();
        Ok(Self { described_base, base, toplevel, files })
    }

    /// A file's text at the base commit; `None` when it did not exist there.
    pub(crate) fn text_at_base(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.toplevel).ok()?;
        git(&self.toplevel, &["show", &format!("{}:{}", self.base, relative.display())]).ok()
    }
}

enum GitError {
    Missing,
    Failed(String),
}

fn missing_git() -> UserError {
    UserError::ProgramMissing {
        program: "git".into(),
        hint: "`--affected` reads changes with git: install it and put it on PATH".into(),
    }
}

fn git_failure(err: GitError, what: &str) -> UserError {
    match err {
        GitError::Missing => missing_git(),
        GitError::Failed(message) => UserError::Usage(format!("`{what}` failed: {}", message.trim())),
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let output = ChildProcess::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .timeout(QUERY_TIMEOUT)
        .output_blocking(&Cancellation::process());
    match &output.end {
        end if end.program_missing() => return Err(GitError::Missing),
        ChildEnd::SpawnFailed(reason) => return Err(GitError::Failed(reason.clone())),
        _ => {}
    }
    if output.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(GitError::Failed(String::from_utf8_lossy(&output.stderr).into_owned()))
    }
}

/// The remote's default branch (`origin/HEAD`, else `origin/main` or `origin/master`), else `HEAD~1`.
fn default_base(dir: &Path) -> Result<(String, Option<&'static str>)> {
    if let Ok(head) = git(dir, &["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"]) {
        let head = head.trim();
        if !head.is_empty() {
            return Ok((head.to_string(), Some("the remote's default branch")));
        }
    }
    for candidate in ["origin/main", "origin/master"] {
        if git(dir, &["rev-parse", "--verify", "--quiet", &format!("refs/remotes/{candidate}")]).is_ok() {
            return Ok((candidate.to_string(), Some("the remote's default branch")));
        }
    }
    if git(dir, &["rev-parse", "--verify", "--quiet", "HEAD~1"]).is_ok() {
        return Ok(("HEAD~1".to_string(), Some("no remote default branch")));
    }
    Err(UserError::Usage(
        "`--affected` found no remote default branch and `HEAD` has no parent: pass `--affected REF`".into(),
    ))
}
