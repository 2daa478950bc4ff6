#!/usr/bin/env bash
# From a fresh clone to a deployed `local` provider: installs Pulumi, the Pulumi Kubernetes
# provider and the control plane's binaries (built from Go modules once, cached), builds
# `runner` and installs it on PATH (cargo's bin folder), writes the example environment file if
# there is none, starts the local control plane (scripts/local-cluster.sh) and runs
# `runner up --provider local --stack dev` into it, against a file backend under `.runner/`.
# Run again, everything is cached and the cluster already running: `up` is all that is left.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
pulumi_dir="$(bash scripts/install-pulumi.sh | tail -n1)"
export PATH="$pulumi_dir:$PATH"
kube_dir="$(bash scripts/install-kube-test-servers.sh | tail -n1)"
bash scripts/install-kubernetes-provider.sh > /dev/null
command -v kubectl >/dev/null 2>&1 || {
    echo "setup: kubectl is required (the cluster's readiness gates and your own look at it): apt-get install kubectl" >&2
    exit 1
}
cargo build --release --locked
# Reuses the release build just made, so this costs a copy, not a second build.
install_bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
if cargo install --quiet --locked --path . --target-dir target --force; then
    echo "setup: installed runner into $install_bin" >&2
else
    echo "setup: warning: could not install runner into $install_bin; use target/release/runner" >&2
fi
if [ ! -f config/pulumi/environment ]; then
    cp config/pulumi/environment.example config/pulumi/environment
    echo "setup: wrote config/pulumi/environment from the example" >&2
fi
RUNNER_KUBE_TEST_BIN="$kube_dir" bash scripts/local-cluster.sh start
echo "setup: installed and started in $((SECONDS - started))s; to run runner yourself: export PATH=\"$install_bin:$pulumi_dir:\$PATH\"" >&2
exec target/release/runner up --provider local --stack dev "$@"
