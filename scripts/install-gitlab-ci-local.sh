#!/usr/bin/env bash
# Installs the pinned `gitlab-ci-local` (runs a `.gitlab-ci.yml` on this host with the shell
# executor when a job names no image) from npm for the tests that run exported pipelines.
# 4.62.0 is the newest release that runs on Node 20. Installed once into a cache directory
# outside the repository (the same cache root as scripts/install-pulumi.sh) and reused.
#
# Prints the directory holding `gitlab-ci-local` as its last line, so callers can do:
# export RUNNER_GITLAB_CI_LOCAL_BIN="$(scripts/install-gitlab-ci-local.sh | tail -n1)"
set -euo pipefail

GCL_VERSION="${RUNNER_GITLAB_CI_LOCAL_VERSION:-4.62.0}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
PREFIX="$CACHE_ROOT/gitlab-ci-local-$GCL_VERSION"
BIN_DIR="$PREFIX/bin"

log() { printf 'install-gitlab-ci-local: %s\n' "$*" >&2; }

# gitlab-ci-local copies the repository into its build folder with rsync.
if ! command -v rsync >/dev/null 2>&1; then
    log "installing rsync (Debian package gitlab-ci-local needs)"
    if [ "$(id -u)" = 0 ]; then
        apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y rsync >&2
    else
        sudo apt-get update >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y rsync >&2
    fi
fi

if [ -z "${RUNNER_GITLAB_CI_LOCAL_FORCE_INSTALL:-}" ] && [ -x "$BIN_DIR/gitlab-ci-local" ]; then
    log "using cached install in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm is required to install gitlab-ci-local: install Node 20"; exit 1; }

log "installing gitlab-ci-local $GCL_VERSION from npm (once)"
rm -rf "$PREFIX.partial"
npm install --global --no-audit --no-fund --prefix "$PREFIX.partial" "gitlab-ci-local@$GCL_VERSION" >&2
rm -rf "$PREFIX"
mv "$PREFIX.partial" "$PREFIX"
log "installed gitlab-ci-local into $BIN_DIR"
echo "$BIN_DIR"
