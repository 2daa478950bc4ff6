#!/usr/bin/env bash
# Builds the pinned `actionlint` (checks GitHub Actions workflows) from Go modules for the tests
# that lint exported workflows. Built once into a cache directory outside the repository (the
# same cache root as scripts/install-pulumi.sh) and reused on the next run.
#
# Prints the directory holding `actionlint` as its last line, so callers can do:
# export RUNNER_ACTIONLINT_BIN="$(scripts/install-actionlint.sh | tail -n1)"
set -euo pipefail

ACTIONLINT_VERSION="${RUNNER_ACTIONLINT_VERSION:-v1.7.12}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/actionlint-$ACTIONLINT_VERSION/bin"

log() { printf 'install-actionlint: %s\n' "$*" >&2; }

if [ -z "${RUNNER_ACTIONLINT_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/actionlint" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build actionlint: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A pinned version, never `@latest`: the module proxy here refuses version lists.
log "building actionlint $ACTIONLINT_VERSION from Go modules (about 1 minute on 2 cores, once)"
mod_file="$(cd "$work" && printf 'module probe\n' > go.mod && GOFLAGS=-mod=mod go mod download -json "github.com/rhysd/actionlint@$ACTIONLINT_VERSION" \
    | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
go_directive="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$mod_file")"
dir="$work/wrapper"
mkdir -p "$dir" "$BIN_DIR.partial"
printf 'module runneractionlintbuild\n\ngo %s\n\nrequire github.com/rhysd/actionlint %s\n' "$go_directive" "$ACTIONLINT_VERSION" > "$dir/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/rhysd/actionlint/cmd/actionlint"\n' > "$dir/tools.go"
(cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN_DIR.partial/actionlint" github.com/rhysd/actionlint/cmd/actionlint)

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed actionlint into $BIN_DIR"
echo "$BIN_DIR"
