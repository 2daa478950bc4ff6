//! Whether `pulumi` can run a project's runtime: it needs `pulumi-language-<runtime>`, found on
//! the run's PATH, next to `pulumi` itself, or installed as a plugin in Pulumi's home.

use std::path::{Path, PathBuf};

use crate::pulumi::ChildEnvironment;

/// `None` when a language host for `runtime` is found; otherwise what is wrong and the runtimes
/// that would run, so `runtime: yml` is refused before a run instead of in its middle.
pub(crate) fn language_host_problem(runtime: &str, environment: &ChildEnvironment) -> Option<String> {
    let folders = host_folders(environment)?;
    let plugins = plugin_home(environment);
    if runtime_available(runtime, &folders, plugins.as_deref()) {
        return None;
    }
    let mut known: Vec<String> = folders
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .filter_map(|entry| entry.file_name().to_str()?.strip_prefix("pulumi-language-").map(str::to_string))
        .collect();
    known.sort();
    known.dedup();
    let known = if known.is_empty() {
        String::new()
    } else {
        format!(" (runtimes found: {})", known.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", "))
    };
    Some(format!(
        "no language host for runtime `{runtime}`: `pulumi-language-{runtime}` is neither next to `pulumi` nor on PATH{known}"
    ))
}

fn runtime_available(runtime: &str, folders: &[PathBuf], plugins: Option<&Path>) -> bool {
    let host = format!("pulumi-language-{runtime}");
    if folders.iter().any(|dir| dir.join(&host).is_file()) {
        return true;
    }
    let prefix = format!("language-{runtime}-");
    plugins
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .is_some_and(|entries| entries.flatten().any(|entry| entry.file_name().to_string_lossy().starts_with(&prefix)))
}

/// The run's PATH, and the folder of the `pulumi` on it (its bundled hosts); `None` without a
/// `pulumi`, which its own check names.
fn host_folders(environment: &ChildEnvironment) -> Option<Vec<PathBuf>> {
    let path = environment.get("PATH").unwrap_or_default();
    let mut folders: Vec<PathBuf> = std::env::split_paths(path).collect();
    let pulumi = folders.iter().map(|dir| dir.join("pulumi")).find(|candidate| candidate.is_file());
    let dir = std::fs::canonicalize(pulumi?).ok()?.parent()?.to_path_buf();
    folders.push(dir);
    Some(folders)
}

fn plugin_home(environment: &ChildEnvironment) -> Option<PathBuf> {
    let home = environment
        .get("PULUMI_HOME")
        .map(PathBuf::from)
        .or_else(|| environment.get("HOME").map(|home| Path::new(home).join(".pulumi")))?;
    Some(home.join("plugins"))
}

#[cfg(test)]
mod tests {
    use super::runtime_available;

    #[test]
    fn a_runtime_needs_its_host_next_to_pulumi_or_as_a_plugin() {
        let bin = tempfile::tempdir().unwrap();
        std::fs::write(bin.path().join("pulumi-language-yaml"), "").unwrap();
        let folders = vec![bin.path().to_path_buf()];
        assert!(runtime_available("yaml", &folders, None));
        assert!(!runtime_available("yml", &folders, None));
        let plugins = tempfile::tempdir().unwrap();
        std::fs::create_dir(plugins.path().join("language-python-v3.1.0")).unwrap();
        assert!(runtime_available("python", &folders, Some(plugins.path())));
    }
}
