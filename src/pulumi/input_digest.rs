//! What a project's program gets besides its upstream outputs, as one salted digest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::ChildEnvironment;
use crate::backend::DigestSalt;

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

/// Everything a project's program gets besides its upstream outputs.
pub(crate) struct ProjectInputs<'a> {
    pub folder: &'a Path,
    pub stack_files: &'a [PathBuf],
    pub environment: &'a ChildEnvironment,
    pub pulumi: &'a Path,
    /// The project's entry in the provider file, as the runner read it.
    pub entry: &'a [u8],
    /// `$PULUMI_HOME/plugins`: a plugin installed or upgraded there is a new input.
    pub plugins: Option<&'a Path>,
}

/// The digest of the project folder's files (names and content, symlinked folders followed),
/// the stack files, every entry of the environment file and the variables the process passes on
/// (less those that differ per shell or CI job), the provider entry, and the `pulumi` binary, its
/// language hosts and plugins (path, size and time: a new version is a new file). `None` when a
/// part cannot be read.
pub(crate) fn input_digest(salt: &DigestSalt, inputs: &ProjectInputs<'_>) -> Option<String> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut files = Vec::new();
    let mut visited = BTreeSet::new();
    collect_files(inputs.folder, &mut files, &mut visited).ok()?;
    files.sort();
    for file in files {
        let relative = file.strip_prefix(inputs.folder).unwrap_or(&file).to_string_lossy().into_owned();
        parts.push(format!("file {relative}").into_bytes());
        parts.push(std::fs::read(&file).ok()?);
    }
    for file in inputs.stack_files {
        parts.push(format!("stack file {}", file.display()).into_bytes());
        // A stack file not written yet is a state too.
        parts.push(std::fs::read(file).unwrap_or_default());
    }
    for (key, value) in inputs.environment.vars() {
        // What the environment file says is always an input; only inherited variables may be noise.
        if !inputs.environment.set_by_file(key) && is_volatile(key) {
            continue;
        }
        parts.push(format!("env {key}={value}").into_bytes());
    }
    parts.push(b"provider entry".to_vec());
    parts.push(inputs.entry.to_vec());
    // The CLI and the language hosts installed beside it (`pulumi-language-yaml`, ...).
    let mut binaries = vec![inputs.pulumi.to_path_buf()];
    if let Some(folder) = inputs.pulumi.parent().filter(|folder| !folder.as_os_str().is_empty()) {
        let hosts = std::fs::read_dir(folder).into_iter().flatten().flatten().map(|entry| entry.path());
        binaries.extend(hosts.filter(|path| path.to_string_lossy().contains("pulumi-language-")));
    }
    binaries[1..].sort();
    if let Some(plugins) = inputs.plugins {
        let mut installed: Vec<PathBuf> =
            std::fs::read_dir(plugins).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
        installed.sort();
        binaries.extend(installed);
    }
    for binary in binaries {
        let metadata = std::fs::metadata(&binary).ok()?;
        let modified = metadata.modified().ok().and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok());
        parts.push(format!("binary {} {} {:?}", binary.display(), metadata.len(), modified).into_bytes());
    }
    Some(salt.digest(parts.iter().map(Vec::as_slice)))
}

fn is_volatile(key: &str) -> bool {
    VOLATILE_VARIABLES.contains(&key) || VOLATILE_PREFIXES.iter().any(|prefix| key.starts_with(prefix))
}

/// Every file under `folder`, through symlinked folders too (each real folder once, so a link
/// back up the tree ends).
fn collect_files(folder: &Path, files: &mut Vec<PathBuf>, visited: &mut BTreeSet<PathBuf>) -> std::io::Result<()> {
    if !visited.insert(std::fs::canonicalize(folder)?) {
        return Ok(());
    }
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let path = entry.path();
        // Followed: a symlink to a folder is read as the folder it names.
        let Ok(metadata) = std::fs::metadata(&path) else { continue };
        if metadata.is_dir() {
            if !SKIPPED_FOLDERS.iter().any(|skipped| entry.file_name() == *skipped) {
                collect_files(&path, files, visited)?;
            }
        } else if metadata.is_file() {
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
        let digest = |env: &ChildEnvironment| {
            let inputs = ProjectInputs {
                folder: &folder,
                stack_files: &[],
                environment: env,
                pulumi: &pulumi,
                entry: b"e",
                plugins: None,
            };
            input_digest(&salt, &inputs).unwrap()
        };
        let env = ChildEnvironment::from_vars(&[("A", "1")]);
        let first = digest(&env);
        std::fs::write(folder.join("node_modules/x.js"), "made by a tool").unwrap();
        assert_eq!(
            digest(&ChildEnvironment::from_vars(&[("A", "1"), ("PWD", "/elsewhere"), ("GITHUB_RUN_ID", "12345")])),
            first
        );
        assert_ne!(digest(&ChildEnvironment::from_vars(&[("A", "2")])), first);
        std::fs::write(folder.join("Pulumi.yaml"), "name: a\ndescription: b\n").unwrap();
        assert_ne!(digest(&env), first);
        let second = digest(&env);
        std::fs::write(&pulumi, "v2 longer").unwrap();
        assert_ne!(digest(&env), second);
        let third = digest(&env);
        std::fs::write(dir.path().join("pulumi-language-yaml"), "a new language host").unwrap();
        assert_ne!(digest(&env), third, "a language host beside the CLI is part of it");
    }

    /// Every entry of the environment file is an input, whatever its name: the prefixes left out
    /// of inherited variables (`SYSTEM_`, `BUILD_`, `SSH_`, `GITLAB_`...) included.
    #[test]
    fn every_environment_file_entry_counts_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Pulumi.yaml"), "name: a\n").unwrap();
        let pulumi = dir.path().join("pulumi");
        std::fs::write(&pulumi, "v1").unwrap();
        let salt = DigestSalt::new(b"s".to_vec());
        let names: Vec<&str> = VOLATILE_VARIABLES
            .iter()
            .copied()
            .chain(VOLATILE_PREFIXES.iter().map(|prefix| prefix.trim_end_matches('_')))
            .chain(["SYSTEM_ACCESS_TOKEN", "BUILD_VERSION", "SSH_PUBLIC_KEY", "GITLAB_BASE_URL", "STYLE_THEME"])
            .collect();
        for name in names {
            let name = if VOLATILE_PREFIXES.iter().any(|prefix| prefix.trim_end_matches('_') == name) {
                format!("{name}_X")
            } else {
                name.to_string()
            };
            let digest = |value: &str| {
                let root = crate::config::RepositoryRoot::unchecked(dir.path());
                let file = crate::config::EnvironmentFile::parse(
                    &dir.path().join("environment"),
                    &format!("{name}={value}\n"),
                )
                .unwrap();
                let env = ChildEnvironment::build(Vec::new(), &file, &root);
                let inputs = ProjectInputs {
                    folder: dir.path(),
                    stack_files: &[],
                    environment: &env,
                    pulumi: &pulumi,
                    entry: b"",
                    plugins: None,
                };
                input_digest(&salt, &inputs).unwrap()
            };
            assert_ne!(digest("one"), digest("two"), "{name} from the environment file");
        }
    }

    #[test]
    fn a_file_read_through_a_symlinked_folder_counts_and_a_loop_ends() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("project");
        let shared = dir.path().join("shared");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("values.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(&shared, folder.join("shared")).unwrap();
        std::os::unix::fs::symlink(&folder, folder.join("loop")).unwrap();
        let pulumi = dir.path().join("pulumi");
        std::fs::write(&pulumi, "v1").unwrap();
        let salt = DigestSalt::new(b"s".to_vec());
        let env = ChildEnvironment::from_vars(&[]);
        let digest = || {
            let inputs = ProjectInputs {
                folder: &folder,
                stack_files: &[],
                environment: &env,
                pulumi: &pulumi,
                entry: b"",
                plugins: None,
            };
            input_digest(&salt, &inputs).unwrap()
        };
        let first = digest();
        std::fs::write(shared.join("values.yaml"), "a: 2\n").unwrap();
        assert_ne!(digest(), first);
    }
}
