#!/usr/bin/env bash
# Builds the pinned fake-gcs-server (a Google Cloud Storage JSON API emulator, BSD-2-Clause)
# from Go modules for the tests that run Pulumi's `gs://` backend on loopback. Built once into
# a cache directory outside the repository (the same cache root as scripts/install-pulumi.sh)
# and reused on the next run.
#
# Prints the directory holding `fake-gcs-server` as its last line, so callers can do:
# export RUNNER_FAKE_GCS_BIN="$(scripts/install-fake-gcs.sh | tail -n1)"
set -euo pipefail

FAKE_GCS_VERSION="${RUNNER_FAKE_GCS_VERSION:-v1.52.2}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/fake-gcs-server-$FAKE_GCS_VERSION/bin"

log() { printf 'install-fake-gcs: %s\n' "$*" >&2; }

if [ -z "${RUNNER_FAKE_GCS_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/fake-gcs-server" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build fake-gcs-server: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

log "building fake-gcs-server $FAKE_GCS_VERSION from Go modules (about 1 minute on 2 cores, once)"
mod_file="$(cd "$work" && printf 'module probe\n' > go.mod && GOFLAGS=-mod=mod go mod download -json "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION" \
    | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
go_directive="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$mod_file")"
dir="$work/wrapper"
mkdir -p "$dir" "$BIN_DIR.partial"
printf 'module runnerfakegcsbuild\n\ngo %s\n\nrequire github.com/fsouza/fake-gcs-server %s\n' "$go_directive" "$FAKE_GCS_VERSION" > "$dir/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/fsouza/fake-gcs-server"\n' > "$dir/tools.go"
(cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN_DIR.partial/fake-gcs-server" github.com/fsouza/fake-gcs-server)

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed fake-gcs-server into $BIN_DIR"
echo "$BIN_DIR"
