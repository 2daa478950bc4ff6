#!/usr/bin/env bash
# Installs the pinned Azurite (Microsoft's Azure Storage emulator) from npm for the tests that
# run Pulumi's `azblob://` backend on loopback. 3.35.0 is the newest release that runs on Node
# 20. Installed once into a cache directory outside the repository (the same cache root as
# scripts/install-pulumi.sh) and reused.
#
# Prints the directory holding `azurite-blob` as its last line, so callers can do:
# export RUNNER_AZURITE_BIN="$(scripts/install-azurite.sh | tail -n1)"
set -euo pipefail

AZURITE_VERSION="${RUNNER_AZURITE_VERSION:-3.35.0}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
PREFIX="$CACHE_ROOT/azurite-$AZURITE_VERSION"
BIN_DIR="$PREFIX/bin"

log() { printf 'install-azurite: %s\n' "$*" >&2; }

if [ -z "${RUNNER_AZURITE_FORCE_INSTALL:-}" ] && [ -x "$BIN_DIR/azurite-blob" ]; then
    log "using cached install in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm is required to install azurite: install Node 20"; exit 1; }

log "installing azurite $AZURITE_VERSION from npm (once)"
rm -rf "$PREFIX.partial"
npm install --global --no-audit --no-fund --prefix "$PREFIX.partial" "azurite@$AZURITE_VERSION" >&2
rm -rf "$PREFIX"
mv "$PREFIX.partial" "$PREFIX"
log "installed azurite into $BIN_DIR"
echo "$BIN_DIR"
