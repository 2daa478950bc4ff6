#!/usr/bin/env bash
# From a fresh clone to a deployed `local` provider: installs Pulumi (built from Go modules and
# cached), builds `runner` and installs it on PATH (cargo's bin folder), writes the example
# environment file if there is none, and runs `runner up --provider local --stack dev` against a
# file backend under `.runner/`.
set -euo pipefail
cd "$(dirname "$0")/.."

pulumi_dir="$(bash scripts/install-pulumi.sh | tail -n1)"
export PATH="$pulumi_dir:$PATH"
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
echo "setup: to run runner yourself: export PATH=\"$install_bin:$pulumi_dir:\$PATH\"" >&2
exec target/release/runner up --provider local --stack dev "$@"
