#!/usr/bin/env bash
# Installs the Pulumi Kubernetes provider plugin the `local` provider's kubernetes phase deploys
# with. Releases cannot be downloaded here and the Go module proxy serves the provider at one
# pseudo-version only (main of 2026-01-15, about 4.25.0), so it is built from that module once
# into a cache directory outside the repository (the cache root of scripts/install-pulumi.sh)
# and installed into Pulumi's plugin folder with `pulumi plugin install --file`.
#
# Needs `pulumi` on PATH. Prints the directory holding `pulumi-resource-kubernetes` as its last
# line.
set -euo pipefail

PROVIDER_MODULE="github.com/pulumi/pulumi-kubernetes/provider/v4"
PROVIDER_PSEUDO_VERSION="${RUNNER_KUBERNETES_PROVIDER_MODULE_VERSION:-v4.0.0-20260115033456-f47bc2d6f199}"
# The version Pulumi knows the plugin by: the sdk released the day after that commit.
PLUGIN_VERSION="${RUNNER_KUBERNETES_PLUGIN_VERSION:-4.25.0}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/pulumi-kubernetes-$PLUGIN_VERSION/bin"
BINARY="$BIN_DIR/pulumi-resource-kubernetes"

log() { printf 'install-kubernetes-provider: %s\n' "$*" >&2; }

command -v pulumi >/dev/null 2>&1 || { log "pulumi is required on PATH: run scripts/install-pulumi.sh first"; exit 1; }

plugin_installed() {
    pulumi plugin ls --json 2>/dev/null | python3 -c '
import json, sys
wanted = sys.argv[1]
plugins = json.load(sys.stdin) or []
sys.exit(0 if any(p.get("name") == "kubernetes" and p.get("kind") == "resource" and p.get("version") == wanted for p in plugins) else 1)
' "$PLUGIN_VERSION"
}

install_plugin() {
    if plugin_installed; then
        log "kubernetes $PLUGIN_VERSION is installed in Pulumi's plugin folder"
    else
        log "installing kubernetes $PLUGIN_VERSION into Pulumi's plugin folder"
        pulumi plugin install resource kubernetes "$PLUGIN_VERSION" --file "$BINARY" >&2
    fi
}

if [ -z "${RUNNER_KUBERNETES_PROVIDER_FORCE_BUILD:-}" ] && [ -x "$BINARY" ]; then
    log "using cached build in $BIN_DIR"
    install_plugin
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build the provider: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

source_dir="$(cd "$work" && printf 'module probe\n' > go.mod \
    && GOFLAGS=-mod=mod go mod download -json "$PROVIDER_MODULE@$PROVIDER_PSEUDO_VERSION" \
    | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
[ -d "$source_dir" ] || { log "the module proxy gave no source for $PROVIDER_MODULE@$PROVIDER_PSEUDO_VERSION"; exit 1; }
cp -R "$source_dir" "$work/provider"
chmod -R u+w "$work/provider"
cd "$work/provider"

# The module's go.mod points the sdk at a folder of the repository the module does not ship;
# without the replace the sdk comes from the proxy.
sed -i '/^replace github.com\/pulumi\/pulumi-kubernetes\/sdk\/v4 => /d' go.mod
# main.go embeds two files the repository generates and the module does not ship: make them as
# the provider's generate.go does (the schema carries the provider's version), written compact.
python3 - "$PLUGIN_VERSION" <<'PY'
import json, sys
folder = "cmd/pulumi-resource-kubernetes/"
with open(folder + "schema.json") as f:
    schema = json.load(f)
schema["version"] = sys.argv[1]
with open(folder + "schema-embed.json", "w") as f:
    json.dump(schema, f, separators=(",", ":"))
with open(folder + "terraform-mapping.json") as f:
    mapping = json.load(f)
with open(folder + "terraform-mapping-embed.json", "w") as f:
    json.dump(mapping, f, separators=(",", ":"))
PY

mkdir -p "$BIN_DIR.partial"
log "building pulumi-resource-kubernetes $PLUGIN_VERSION from Go modules (about 15 minutes on 2 cores, once)"
GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w -X $PROVIDER_MODULE/pkg/version.Version=$PLUGIN_VERSION" \
    -o "$BIN_DIR.partial/pulumi-resource-kubernetes" ./cmd/pulumi-resource-kubernetes

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "built pulumi-resource-kubernetes into $BIN_DIR"
install_plugin
echo "$BIN_DIR"
