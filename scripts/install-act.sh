#!/usr/bin/env bash
# Builds the pinned `act` (runs a GitHub Actions workflow on this host, no Docker with
# `-P ubuntu-latest=-self-hosted`) from Go modules for the tests that run exported workflows.
# Built once into a cache directory outside the repository (the same cache root as
# scripts/install-pulumi.sh) and reused on the next run.
#
# Prints the directory holding `act` as its last line, so callers can do:
# export RUNNER_ACT_BIN="$(scripts/install-act.sh | tail -n1)"
set -euo pipefail

ACT_VERSION="${RUNNER_ACT_VERSION:-v0.2.89}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/act-$ACT_VERSION/bin"

log() { printf 'install-act: %s\n' "$*" >&2; }

if [ -z "${RUNNER_ACT_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/act" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build act: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A pinned version, never `@latest`: the module proxy here refuses version lists.
log "building act $ACT_VERSION from Go modules (a few minutes on 2 cores, once)"
mod_file="$(cd "$work" && printf 'module probe\n' > go.mod && GOFLAGS=-mod=mod go mod download -json "github.com/nektos/act@$ACT_VERSION" \
    | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
go_directive="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$mod_file")"
dir="$work/wrapper"
mkdir -p "$dir" "$BIN_DIR.partial"
printf 'module runneractbuild\n\ngo %s\n\nrequire github.com/nektos/act %s\n' "$go_directive" "$ACT_VERSION" > "$dir/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/nektos/act"\n' > "$dir/tools.go"
(cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN_DIR.partial/act" github.com/nektos/act)

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed act into $BIN_DIR"
echo "$BIN_DIR"
