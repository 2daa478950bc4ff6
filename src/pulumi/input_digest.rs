//! What a project's program gets besides its upstream outputs, as one salted digest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::execute::DigestSalt;

/// Folders that hold what a tool made, not what a program reads.
const SKIPPED_FOLDERS: &[&str] = &[".git", "node_modules", "__pycache__", "venv", ".venv", "target", ".runner"];

/// Variables that differ between shells, terminals and CI jobs but describe no input of a
/// program: with them every CI run would count as changed (`GITHUB_RUN_ID`, `CI_JOB_ID`).
const VOLATILE_VARIABLES: &[&str] =
    &["_", "PWD", "OLDPWD", "SHLVL", "COLUMNS", "LINES", "TERM", "DISPLAY", "WINDOWID", "HOSTNAME", "INVOCATION_ID"];
const VOLATILE_PREFIXES: &[&str] = &[
    "SSH_",
    "TMUX",
    "XDG_SESSION",
    "TERM_",
    "STY",
    "WT_SESSION",
    "RUNNER_",
    "GITHUB_",
    "ACTIONS_",
    "CI_",
    "GITLAB_",
    "BUILDKITE_",
    "CIRCLE_",
    "JENKINS_",
    "BUILD_",
    "JOB_",
    "TEAMCITY_",
    "SYSTEM_",
    "AGENT_",
];

/// The digest of the project folder's files (names and content), the stack files, the
/// environment and the `pulumi` binary (its path, size and time: a new version is a new file).
/// `None` when a part cannot be read.
pub fn input_digest(
    salt: &DigestSalt,
    folder: &Path,
    stack_files: &[PathBuf],
    environment: &BTreeMap<String, String>,
    pulumi: &Path,
) -> Option<String> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut files = Vec::new();
    collect_files(folder, &mut files).ok()?;
    files.sort();
    for file in files {
        let relative = file.strip_prefix(folder).unwrap_or(&file).to_string_lossy().into_owned();
        parts.push(format!("file {relative}").into_bytes());
        parts.push(std::fs::read(&file).ok()?);
    }
    for file in stack_files {
        parts.push(format!("stack file {}", file.display()).into_bytes());
        // A stack file not written yet is a state too.
        parts.push(std::fs::read(file).unwrap_or_default());
    }
    for (key, value) in environment {
        if VOLATILE_VARIABLES.contains(&key.as_str()) || VOLATILE_PREFIXES.iter().any(|p| key.starts_with(p)) {
            continue;
        }
        parts.push(format!("env {key}={value}").into_bytes());
    }
    // The CLI and the language hosts installed beside it (`pulumi-language-yaml`, ...).
    let mut binaries = vec![pulumi.to_path_buf()];
    if let Some(folder) = pulumi.parent().filter(|folder| !folder.as_os_str().is_empty()) {
        let hosts = std::fs::read_dir(folder).into_iter().flatten().flatten().map(|entry| entry.path());
        binaries.extend(hosts.filter(|path| path.to_string_lossy().contains("pulumi-language-")));
    }
    binaries[1..].sort();
    for binary in binaries {
        let metadata = std::fs::metadata(&binary).ok()?;
        let modified = metadata.modified().ok().and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok());
        parts.push(format!("binary {} {} {:?}", binary.display(), metadata.len(), modified).into_bytes());
    }
    Some(salt.digest(parts.iter().map(Vec::as_slice)))
}

fn collect_files(folder: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            if !SKIPPED_FOLDERS.iter().any(|skipped| entry.file_name() == *skipped) {
                collect_files(&path, files)?;
            }
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_an_entry_or_the_cli_changes_the_digest_and_a_terminal_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("project");
        std::fs::create_dir_all(folder.join("node_modules")).unwrap();
        std::fs::write(folder.join("Pulumi.yaml"), "name: a\n").unwrap();
        let pulumi = dir.path().join("pulumi");
        std::fs::write(&pulumi, "v1").unwrap();
        let salt = DigestSalt::new(b"s".to_vec());
        let env: BTreeMap<String, String> = [("A".to_string(), "1".to_string())].into();
        let digest = |env: &BTreeMap<String, String>| input_digest(&salt, &folder, &[], env, &pulumi).unwrap();
        let first = digest(&env);
        std::fs::write(folder.join("node_modules/x.js"), "made by a tool").unwrap();
        let mut terminal = env.clone();
        terminal.insert("PWD".into(), "/elsewhere".into());
        terminal.insert("GITHUB_RUN_ID".into(), "12345".into());
        assert_eq!(digest(&terminal), first);
        let mut other = env.clone();
        other.insert("A".into(), "2".into());
        assert_ne!(digest(&other), first);
        std::fs::write(folder.join("Pulumi.yaml"), "name: a\ndescription: b\n").unwrap();
        assert_ne!(digest(&env), first);
        let second = digest(&env);
        std::fs::write(&pulumi, "v2 longer").unwrap();
        assert_ne!(digest(&env), second);
        let third = digest(&env);
        std::fs::write(dir.path().join("pulumi-language-yaml"), "a new language host").unwrap();
        assert_ne!(digest(&env), third, "a language host beside the CLI is part of it");
    }
}
