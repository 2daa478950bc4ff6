#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the real Pulumi CLI (cached), then runs every
# unit, snapshot and integration test, including those against the real `pulumi`.
set -euo pipefail
cd "$(dirname "$0")/.."

pulumi_dir="$(bash scripts/install-pulumi.sh | tail -n1)"
export PATH="$pulumi_dir:$PATH"
command -v kubectl >/dev/null 2>&1 || {
    echo "test: kubectl is required (the kubeconfig hook is checked with it): apt-get install kubectl" >&2
    exit 1
}
command -v python3 >/dev/null 2>&1 || { echo "test: python3 is required by the pulumi test double" >&2; exit 1; }
# Debian packages the tests drive: `runner timeline` pictures are checked as a real browser
# draws them (chromium), `show --format dot` as graphviz lays it out (graphviz), the completion
# scripts in the shells they are for (zsh, fish), and the screen a person sees after Ctrl-C (tmux).
missing=()
for need in chromium:chromium dot:graphviz zsh:zsh fish:fish tmux:tmux; do
    command -v "${need%%:*}" >/dev/null 2>&1 || missing+=("${need#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "test: installing ${missing[*]} (Debian packages the tests use)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    else
        sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    fi
fi

# The real Kubernetes control plane (for `runner export pko` and the `local` provider's cluster)
# and the S3-compatible object store
# (for the shared-backend tests), built from Go modules once and cached like Pulumi; the Azure
# Blob and Google Cloud Storage emulators (for the `azblob://` and `gs://` lock tests), from npm
# and Go modules.
RUNNER_KUBE_TEST_BIN="$(bash scripts/install-kube-test-servers.sh | tail -n1)"
# The Pulumi Kubernetes provider the `local` provider's kubernetes phase deploys with (the
# real-cluster tests link it into each test's Pulumi home).
RUNNER_KUBERNETES_PROVIDER_BIN="$(bash scripts/install-kubernetes-provider.sh | tail -n1)"
RUNNER_VERSITYGW_BIN="$(bash scripts/install-versitygw.sh | tail -n1)"
RUNNER_AZURITE_BIN="$(bash scripts/install-azurite.sh | tail -n1)"
RUNNER_FAKE_GCS_BIN="$(bash scripts/install-fake-gcs.sh | tail -n1)"
export RUNNER_KUBE_TEST_BIN RUNNER_KUBERNETES_PROVIDER_BIN RUNNER_VERSITYGW_BIN RUNNER_AZURITE_BIN RUNNER_FAKE_GCS_BIN
# The CI engines the exported pipelines run on (`act`, `gitlab-ci-local`, which needs Debian's
# rsync) and the workflow linter, built or installed once and cached like Pulumi.
RUNNER_ACT_BIN="$(bash scripts/install-act.sh | tail -n1)"
RUNNER_ACTIONLINT_BIN="$(bash scripts/install-actionlint.sh | tail -n1)"
RUNNER_GITLAB_CI_LOCAL_BIN="$(bash scripts/install-gitlab-ci-local.sh | tail -n1)"
export RUNNER_ACT_BIN RUNNER_ACTIONLINT_BIN RUNNER_GITLAB_CI_LOCAL_BIN
command -v openssl >/dev/null 2>&1 || { echo "test: openssl is required (the API server's test certificates): apt-get install openssl" >&2; exit 1; }

cargo fmt --all -- --check
# The declared minimum Rust version builds the lock (compared from the metadata).
python3 scripts/check-rust-version.py
# benches/report.py turns measurements into BENCHMARKS.md's tables; its tests need no benchmark run.
python3 -m unittest discover -s benches
# Clean today and kept so: a lint that fires fails the suite, as a failing test does.
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked --all-targets
