#!/usr/bin/env bash
# The whole suite, N times in a row (default 3), with two CPU-bound processes beside it: the
# suite must hold on a loaded machine (a CI runner shared with other jobs), not only on an idle
# one. Stops at the first red run. Usage: scripts/test-under-load.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
spin() { while :; do :; done; }
spin & first=$!
spin & second=$!
trap 'kill "$first" "$second" 2>/dev/null || true' EXIT
for run in $(seq 1 "$runs"); do
    started=$(date +%s)
    echo "test-under-load: run $run of $runs (load: two CPU-bound processes)" >&2
    bash scripts/test.sh
    echo "test-under-load: run $run of $runs passed in $(( $(date +%s) - started ))s" >&2
done
