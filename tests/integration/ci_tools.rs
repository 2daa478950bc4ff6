//! The CI engines the exported pipelines are run and checked with, built or installed by
//! `scripts/install-act.sh`, `scripts/install-actionlint.sh` and
//! `scripts/install-gitlab-ci-local.sh` into the cache Pulumi uses. Tests fail, never skip,
//! without them.

use std::path::PathBuf;

use crate::kube_api_server::cache_root;

/// `variable` (a folder), else `build/bin` in the cache; the binary must be there.
fn tool(variable: &str, build: &str, binary: &str, script: &str) -> PathBuf {
    crate::support::needs_external(binary);
    let dir = match std::env::var_os(variable) {
        Some(dir) => PathBuf::from(dir),
        None => cache_root().join(build).join("bin"),
    };
    let path = dir.join(binary);
    assert!(path.is_file(), "`{}` is missing: run `scripts/{script}`", path.display());
    path
}

/// Kept in step with `scripts/install-act.sh`.
pub(crate) fn act() -> PathBuf {
    tool("RUNNER_ACT_BIN", "act-v0.2.89", "act", "install-act.sh")
}

/// Kept in step with `scripts/install-actionlint.sh`.
pub(crate) fn actionlint() -> PathBuf {
    tool("RUNNER_ACTIONLINT_BIN", "actionlint-v1.7.12", "actionlint", "install-actionlint.sh")
}

/// Kept in step with `scripts/install-gitlab-ci-local.sh`.
pub(crate) fn gitlab_ci_local() -> PathBuf {
    tool("RUNNER_GITLAB_CI_LOCAL_BIN", "gitlab-ci-local-4.62.0", "gitlab-ci-local", "install-gitlab-ci-local.sh")
}
