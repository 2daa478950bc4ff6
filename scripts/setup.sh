#!/usr/bin/env bash
# From a fresh clone to a deployed `local` provider: installs Pulumi (built from Go modules and
# cached), builds `runner`, writes the example environment file if there is none, and runs
# `runner up --provider local --stack dev` against a file backend under `.runner/`.
set -euo pipefail
cd "$(dirname "$0")/.."

pulumi_dir="$(bash scripts/install-pulumi.sh | tail -n1)"
export PATH="$pulumi_dir:$PATH"
cargo build --release --locked
if [ ! -f config/pulumi/environment ]; then
    cp config/pulumi/environment.example config/pulumi/environment
    echo "setup: wrote config/pulumi/environment from the example" >&2
fi
echo "setup: to run runner yourself: cargo install --locked --path . && export PATH=\"$pulumi_dir:\$PATH\"" >&2
exec target/release/runner up --provider local --stack dev "$@"
