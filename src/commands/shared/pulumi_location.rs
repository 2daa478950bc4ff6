use std::path::{Path, PathBuf};

use crate::error::{Result, UserError};
use crate::pulumi::ChildEnvironment;

/// The `pulumi` a run uses: the first on the run's PATH. When there is none, the hint points at
/// a copy `scripts/install-pulumi.sh` already built, rather than asking for a new build.
pub(crate) fn find_pulumi(environment: &ChildEnvironment) -> Result<PathBuf> {
    let path = environment.get("PATH").map(str::to_string).unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    which::which_in("pulumi", Some(path), cwd)
        .map_err(|_| UserError::ProgramMissing { program: "pulumi".into(), hint: pulumi_missing_hint(environment) })
}

/// How to get a `pulumi` onto the run's PATH: the cached build when there is one.
pub(crate) fn pulumi_missing_hint(environment: &ChildEnvironment) -> String {
    missing_pulumi_hint(cached_builds(&|name| environment.get(name).map(str::to_string)))
}

fn missing_pulumi_hint(cached: Vec<PathBuf>) -> String {
    match cached.last() {
        Some(dir) => format!("a built copy is in `{}`: run `export PATH=\"{}:$PATH\"`", dir.display(), dir.display()),
        None => "run `bash scripts/install-pulumi.sh` (it builds Pulumi once, 10-20 minutes) and put the folder it prints on PATH".into(),
    }
}

/// Folders holding a `pulumi` that `scripts/install-pulumi.sh` built, oldest version first; the
/// script caches under `RUNNER_CACHE_DIR`, else `XDG_CACHE_HOME/runner`, else `~/.cache/runner`.
fn cached_builds(variable: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let set = |name: &str| variable(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    let Some(root) = set("RUNNER_CACHE_DIR")
        .or_else(|| set("XDG_CACHE_HOME").map(|dir| dir.join("runner")))
        .or_else(|| set("HOME").map(|home| home.join(".cache/runner")))
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&root) else { return Vec::new() };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("pulumi-"))
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| is_executable(&bin.join("pulumi")))
        .collect();
    found.sort();
    found
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_build_is_named_instead_of_a_new_build() {
        let cache = tempfile::tempdir().unwrap();
        let bin = cache.path().join("pulumi-v3.259.0-yaml-v1.38.1/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("pulumi"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(bin.join("pulumi"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let root = cache.path().display().to_string();
        let found = cached_builds(&|name| (name == "RUNNER_CACHE_DIR").then(|| root.clone()));
        assert_eq!(found, std::slice::from_ref(&bin));
        let hint = missing_pulumi_hint(found);
        assert!(hint.contains(&format!("export PATH=\"{}:$PATH\"", bin.display())), "{hint}");
    }

    #[test]
    fn without_a_cache_the_hint_says_how_to_build() {
        let empty = tempfile::tempdir().unwrap();
        let root = empty.path().display().to_string();
        let found = cached_builds(&|name| (name == "HOME").then(|| root.clone()));
        assert!(found.is_empty());
        assert!(missing_pulumi_hint(found).contains("scripts/install-pulumi.sh"));
    }
}
