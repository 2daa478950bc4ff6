#!/usr/bin/env bash
# Builds the pinned etcd, kube-apiserver and kube-controller-manager from Go modules: the tests
# validate `runner export pko` against a real Kubernetes API server, and scripts/local-cluster.sh
# runs the three as the `local` provider's control plane (the controller manager's garbage
# collector and namespace controller are what let a foreground delete finish). No prebuilt binary can be
# downloaded here, so they are built once into a cache directory outside the repository
# (the same cache root as scripts/install-pulumi.sh) and reused on the next run.
#
# Prints the directory holding the three binaries as its last line, so callers can
# do: export RUNNER_KUBE_TEST_BIN="$(scripts/install-kube-test-servers.sh | tail -n1)"
set -euo pipefail

KUBE_VERSION="${RUNNER_KUBE_VERSION:-v1.34.4}"
ETCD_VERSION="${RUNNER_ETCD_VERSION:-v3.6.16}"
CACHE_ROOT="${RUNNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runner}"
BIN_DIR="$CACHE_ROOT/kube-$KUBE_VERSION-etcd-$ETCD_VERSION/bin"
# The staging modules (k8s.io/api, k8s.io/apiserver...) are published as v0.<minor>.<patch>.
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"

log() { printf 'install-kube-test-servers: %s\n' "$*" >&2; }

if [ -z "${RUNNER_KUBE_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/etcd" ] && [ -x "$BIN_DIR/kube-apiserver" ] \
    && [ -x "$BIN_DIR/kube-controller-manager" ]; then
    log "using cached build in $BIN_DIR"
    echo "$BIN_DIR"
    exit 0
fi

command -v go >/dev/null 2>&1 || { log "go is required to build etcd and kube-apiserver: install Go 1.25 or newer"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$BIN_DIR.partial"
# A cache made before the controller manager joined keeps its two binaries.
for binary in etcd kube-apiserver; do
    if [ -z "${RUNNER_KUBE_FORCE_BUILD:-}" ] && [ -x "$BIN_DIR/$binary" ] && [ ! -x "$BIN_DIR.partial/$binary" ]; then
        cp "$BIN_DIR/$binary" "$BIN_DIR.partial/$binary"
    fi
done

# A throwaway wrapper module imports the main package, so `go build` resolves it with the
# wrapper's go.mod (dependency modules' own replace directives are ignored by Go).
wrapper_build() { # dir package output ldflags
    local dir="$1" package="$2" output="$3" ldflags="$4"
    printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$package" > "$dir/tools.go"
    (cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$output" "$package")
}

if [ -x "$BIN_DIR.partial/etcd" ]; then
    log "reusing etcd from an earlier partial build"
else
    log "building etcd $ETCD_VERSION from Go modules (about 20 s on 2 idle cores, once)"
    dir="$work/etcd"
    mkdir -p "$dir"
    printf 'module runneretcdbuild\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > "$dir/go.mod"
    wrapper_build "$dir" go.etcd.io/etcd/server/v3 "$BIN_DIR.partial/etcd" "-s -w"
fi

kube_dir="$work/kube"
prepare_kube_module() {
    [ -f "$kube_dir/go.mod" ] && return 0
    local dir="$kube_dir"
    mkdir -p "$dir"
    kube_mod="$(cd "$dir" && printf 'module probe\n' > go.mod && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" \
        | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
    go_directive="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$kube_mod")"
    # k8s.io/kubernetes replaces every staging module with a path inside its own repository;
    # a module outside that repository must name the published versions instead.
    mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/.*#\1#p' "$kube_mod")
    [ "${#staging[@]}" -gt 0 ] || { log "found no staging replaces in $kube_mod"; exit 1; }
    {
        printf 'module runnerkubebuild\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\n' "$go_directive" "$KUBE_VERSION"
        for module in "${staging[@]}"; do
            printf 'replace %s => %s %s\n' "$module" "$module" "$STAGING_VERSION"
        done
    } > "$dir/go.mod"
    log "replacing ${#staging[@]} staging modules with $STAGING_VERSION"
    minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
    version_flags="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION"
    version_flags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
}

for command in kube-apiserver kube-controller-manager; do
    if [ -x "$BIN_DIR.partial/$command" ]; then
        log "reusing $command from an earlier build"
        continue
    fi
    prepare_kube_module
    log "building $command $KUBE_VERSION from Go modules (1-6 minutes on 2 cores, once)"
    wrapper_build "$kube_dir" "k8s.io/kubernetes/cmd/$command" "$BIN_DIR.partial/$command" "-s -w $version_flags"
done

rm -rf "$BIN_DIR"
mv "$BIN_DIR.partial" "$BIN_DIR"
log "installed etcd, kube-apiserver and kube-controller-manager into $BIN_DIR"
echo "$BIN_DIR"
