#!/usr/bin/env bash
# Builds the pinned versitygw (an Apache-2.0 S3-compatible object store) from Go modules for
# the tests that run Pulumi's S3 backend on loopback. Built once into a cache directory outside
# the repository (the same cache root as scripts/install-pulumi.sh) and reused on the next run.
#
# Prints the directory holding `versitygw` as its last line, so callers can do:
# export RUNNER_VERSITYGW_BIN="$(scripts/install-versitygw.sh | tail -n1)"
set -euo pipefail

VERSITYGW_VERSION="${RUNNER_VERSITYGW_VERSION:-v1.8.0}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/versitygw-$VERSITYGW_VERSION/bin"

log() { printf 'install-versitygw: %s\n' "$*" >&2; }

if [ -z "${RUNNER_VERSITYGW_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/versitygw" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build versitygw: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

log "building versitygw $VERSITYGW_VERSION from Go modules (about 1 minute on 2 cores, once)"
mod_file="$(cd "$work" && printf 'module probe\n' > go.mod && GOFLAGS=-mod=mod go mod download -json "github.com/versity/versitygw@$VERSITYGW_VERSION" \
    | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
go_directive="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$mod_file")"
dir="$work/wrapper"
mkdir -p "$dir" "$BIN_DIR.partial"
printf 'module runnerversitygwbuild\n\ngo %s\n\nrequire github.com/versity/versitygw %s\n' "$go_directive" "$VERSITYGW_VERSION" > "$dir/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/versity/versitygw/cmd/versitygw"\n' > "$dir/tools.go"
(cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN_DIR.partial/versitygw" github.com/versity/versitygw/cmd/versitygw)

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed versitygw into $BIN_DIR"
echo "$BIN_DIR"
