#!/usr/bin/env bash
# Installs the pinned Pulumi CLI and the YAML language host, building them from Go modules
# because no prebuilt binary can be downloaded here. The build lands in a cache directory
# outside the repository and is reused on the next run; a new enough `pulumi` on PATH wins.
#
# Prints the directory holding `pulumi` and `pulumi-language-yaml` as its last line, so
# callers can do: PATH="$(scripts/install-pulumi.sh | tail -n1):$PATH"
set -euo pipefail

PULUMI_VERSION="${RUNNER_PULUMI_VERSION:-v3.259.0}"
PULUMI_YAML_VERSION="${RUNNER_PULUMI_YAML_VERSION:-v1.38.1}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/pulumi-$PULUMI_VERSION-yaml-$PULUMI_YAML_VERSION/bin"

log() { printf 'install-pulumi: %s\n' "$*" >&2; }

version_at_least() { # $1 >= $2, both vX.Y.Z
    [ "$(printf '%s\n%s\n' "${1#v}" "${2#v}" | sort -V | head -n1)" = "${2#v}" ]
}

on_path_is_good() {
    command -v pulumi >/dev/null 2>&1 || return 1
    command -v pulumi-language-yaml >/dev/null 2>&1 || return 1
    local found
    found="$(pulumi version 2>/dev/null | tr -d '[:space:]')"
    [ -n "$found" ] && version_at_least "$found" "$PULUMI_VERSION"
}

if [ -z "${RUNNER_PULUMI_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/pulumi" ] && [ -x "$BIN_DIR/pulumi-language-yaml" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

if [ -z "${RUNNER_PULUMI_FORCE_BUILD:-}" ] && on_path_is_good; then
    dir="$(dirname "$(command -v pulumi)")"
    log "using pulumi $(pulumi version) from PATH"
    echo "$dir"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build pulumi: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Builds a Go package inside a throwaway wrapper module that pins pulumi's pkg and sdk to the
# same version and repeats pkg's non-local replaces (a clipboard fork). `go install pkg@v` is
# avoided: pkg's go.mod replaces sdk with a relative path, and `go install` asks the proxy for
# a module's version list, which some proxies refuse.
build_in_wrapper() { # package output ldflags [extra module version]
    local package="$1" output="$2" ldflags="$3" extra_module="${4:-}" extra_version="${5:-}"
    local dir="$work/$(basename "$output")"
    mkdir -p "$dir"
    {
        echo "module runnerpulumibuild"
        echo
        echo "go $GO_DIRECTIVE"
        echo
        echo "require github.com/pulumi/pulumi/pkg/v3 $PULUMI_VERSION"
        echo "require github.com/pulumi/pulumi/sdk/v3 $PULUMI_VERSION"
        [ -n "$extra_module" ] && echo "require $extra_module $extra_version"
        printf '%s\n' "${PKG_REPLACES[@]}"
    } > "$dir/go.mod"
    printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$package" > "$dir/tools.go"
    (cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$output" "$package")
}

pkg_mod="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" \
    | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
GO_DIRECTIVE="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$pkg_mod")"
mapfile -t PKG_REPLACES < <(grep -E '^replace [^ ]+ => [^./][^ ]* v' "$pkg_mod" || true)

mkdir -p "$BIN_DIR.partial"
if [ "$("$BIN_DIR.partial/pulumi" version 2>/dev/null | tr -d '[:space:]')" = "$PULUMI_VERSION" ]; then
    log "reusing pulumi $PULUMI_VERSION from an earlier partial build"
else
    log "building pulumi $PULUMI_VERSION from Go modules (10-20 minutes on 2 cores, once)"
    build_in_wrapper github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$BIN_DIR.partial/pulumi" \
        "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION"
fi

log "building pulumi-language-yaml $PULUMI_YAML_VERSION"
build_in_wrapper github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml "$BIN_DIR.partial/pulumi-language-yaml" \
    "-s -w" github.com/pulumi/pulumi-yaml "$PULUMI_YAML_VERSION"

got="$("$BIN_DIR.partial/pulumi" version | tr -d '[:space:]')"
[ "$got" = "$PULUMI_VERSION" ] || { log "built pulumi reports '$got', expected $PULUMI_VERSION"; exit 1; }

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed pulumi $got into $BIN_DIR"
echo "$BIN_DIR"
