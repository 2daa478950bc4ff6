#!/usr/bin/env bash
# `runner up` against the plain loop it replaces, both with the real `pulumi`, on the shipped
# `local` provider deployed into the real control plane (scripts/local-cluster.sh): a bash loop
# of `pulumi up --yes --skip-preview` over the same projects one after another in the graph's
# order (MARA's strategy). Runs alternate (A B A B ...) after a warm-up.
#
#   bash benches/side_by_side.sh [ROUNDS]     (RUNNER=path/to/runner to use another build)
#
# Scenarios: nothing changed (the runner as it is, which skips what the backend proves
# unchanged, and with --no-skip-unchanged, one `up` per project as the loop); one change at the root (`local:cidr` toggled in the shared stack
# file, which the cluster reads through the network's outputs); fresh stacks (the backend
# emptied after a `runner destroy`, so both sides `stack init` every project). Measured per run
# with benches/measure.py (wall, CPU of the whole process tree) and the PATH shim
# (benches/shim/pulumi: every `pulumi` process started by either side). The critical path is
# the runner's own: `runner show --format json` after the runs, from the durations of its `up`s.
# Prints a Markdown table and the raw figures' folder.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
ROUNDS="${1:-5}"
RUNNER="${RUNNER:-$ROOT/target/release/runner}"
[ -x "$RUNNER" ] || (cd "$ROOT" && cargo build --release --quiet)
PULUMI_DIR="$(bash "$ROOT/scripts/install-pulumi.sh" 2>/dev/null | tail -n1)"
KUBE_BIN="$(bash "$ROOT/scripts/install-kube-test-servers.sh" 2>/dev/null | tail -n1)"
PROVIDER_BIN="$(PATH="$PULUMI_DIR:$PATH" bash "$ROOT/scripts/install-kubernetes-provider.sh" 2>/dev/null | tail -n1)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/runner-side-by-side.XXXXXX")"
REPO="$WORK/repo"
FIGURES="$WORK/figures.jsonl"

mkdir -p "$REPO/providers" "$REPO/config/pulumi" "$WORK/home/.pulumi/plugins/resource-kubernetes-v4.25.0" "$WORK/bin"
cp "$ROOT/providers/local.toml" "$REPO/providers/"
cp -R "$ROOT/projects" "$REPO/"
{
    cat "$ROOT/config/pulumi/environment.example"
    echo "PULUMI_BACKEND_URL=file://$REPO/.runner/backend"
} > "$REPO/config/pulumi/environment"
ln -s "$PROVIDER_BIN/pulumi-resource-kubernetes" "$WORK/home/.pulumi/plugins/resource-kubernetes-v4.25.0/"
cp "$BENCH_DIR/shim/pulumi" "$WORK/bin/pulumi"
export HOME="$WORK/home" PATH="$WORK/bin:$PULUMI_DIR:$PATH"
export BENCH_REAL_PULUMI="$PULUMI_DIR/pulumi" BENCH_SHIM_LOG="$WORK/shim.log"
export PULUMI_CONFIG_PASSPHRASE=local-dev-passphrase PULUMI_BACKEND_URL="file://$REPO/.runner/backend"
export RUNNER_LOCAL_CLUSTER_DIR="$REPO/.runner/local-cluster" RUNNER_KUBE_TEST_BIN="$KUBE_BIN"
export RUNNER_LOCAL_CLUSTER_PORT="${BENCH_CLUSTER_PORT:-26443}" RUNNER_LOCAL_CLUSTER_ETCD_PORT="${BENCH_ETCD_PORT:-26379}"
export RUNNER_LOCAL_CLUSTER_ETCD_PEER_PORT="${BENCH_ETCD_PEER_PORT:-26380}"
cleanup() {
    bash "$ROOT/scripts/local-cluster.sh" stop >/dev/null 2>&1 || true
    [ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
bash "$ROOT/scripts/local-cluster.sh" start 2>/dev/null

cd "$REPO"
runner_up() { "$RUNNER" up --provider local --stack dev --non-interactive "$@"; }
mapfile -t ORDER < <("$RUNNER" show --provider local --format json | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["order"]))')
loop_up() { # what a bash loop over the graph's order does, stacks made when missing
    for project in "${ORDER[@]}"; do
        (cd "projects/local/$project" && pulumi stack select --create dev >/dev/null && pulumi up --yes --skip-preview --stack dev >/dev/null)
    done
}
# The loop's `stack select --create` is one process more per project than `pulumi up` alone
# where the stack exists: with it left out, the loop is what MARA's own runner would do there.
loop_up_existing() {
    for project in "${ORDER[@]}"; do
        (cd "projects/local/$project" && pulumi up --yes --skip-preview --stack dev >/dev/null)
    done
}
measure() { # label command...
    local label="$1"
    shift
    local before
    before="$(wc -l < "$BENCH_SHIM_LOG" 2>/dev/null || echo 0)"
    python3 "$BENCH_DIR/measure.py" --out "$FIGURES" --label "$label" --stdout "$WORK/$label.out" --stderr "$WORK/$label.err" -- "$@"
    local after
    after="$(wc -l < "$BENCH_SHIM_LOG")"
    printf '{"label": "%s", "pulumi_processes": %d}\n' "$label" "$((after - before))" >> "$WORK/processes.jsonl"
}
export -f loop_up loop_up_existing runner_up
export RUNNER ORDER_TEXT="${ORDER[*]}"
toggle_cidr() { # the root's input, changed before every measured run of that scenario
    if grep -q '^  local:cidr: 10.42.0.0/16' config/pulumi/Pulumi.dev.yaml; then
        sed -i 's|^  local:cidr: .*|  local:cidr: 10.43.0.0/16|' config/pulumi/Pulumi.dev.yaml
    else
        sed -i 's|^  local:cidr: .*|  local:cidr: 10.42.0.0/16|' config/pulumi/Pulumi.dev.yaml
    fi
}
fresh() { # nothing deployed, no stack in the backend
    "$RUNNER" destroy --provider local --stack dev --yes >/dev/null 2>&1
    rm -rf "$REPO/.runner/backend"
    mkdir -p "$REPO/.runner/backend"
}

runner_up >/dev/null 2>&1   # deploys, stores the demo's secret in the stack file
loop_up_existing            # warm-up of the loop
: > "$BENCH_SHIM_LOG"
for round in $(seq "$ROUNDS"); do
    measure "unchanged-runner-$round" bash -c 'runner_up'
    measure "unchanged-loop-$round" bash -c 'ORDER=($ORDER_TEXT); loop_up_existing'
    measure "unchanged-runner_every_project-$round" bash -c 'runner_up --no-skip-unchanged'
done
"$RUNNER" show --provider local --format json > "$WORK/show-unchanged.json"
for round in $(seq "$ROUNDS"); do
    toggle_cidr
    measure "root-change-runner-$round" bash -c 'runner_up'
    toggle_cidr
    measure "root-change-loop-$round" bash -c 'ORDER=($ORDER_TEXT); loop_up_existing'
done
for round in $(seq "$(( (ROUNDS + 1) / 2 ))"); do
    fresh
    measure "fresh-runner-$round" bash -c 'runner_up'
    fresh
    measure "fresh-loop-$round" bash -c 'ORDER=($ORDER_TEXT); loop_up'
done
"$RUNNER" destroy --provider local --stack dev --yes >/dev/null 2>&1 || true

python3 - "$FIGURES" "$WORK/processes.jsonl" "$WORK/show-unchanged.json" "${#ORDER[@]}" <<'PY'
import json, statistics, sys
figures = [json.loads(line) for line in open(sys.argv[1])]
processes = {p["label"]: p["pulumi_processes"] for p in map(json.loads, open(sys.argv[2]))}
show = json.load(open(sys.argv[3]))
projects = int(sys.argv[4])
critical = show["expected"]["critical_path_seconds"]
def runs(prefix):
    return [f for f in figures if f["label"].rsplit("-", 1)[0] == prefix]
print("| scenario | side | runs | wall (median) | range | CPU (median) | `pulumi` processes per project | exit |")
print("|---|---|---:|---:|---|---:|---:|---|")
ratios = []
for scenario in ["unchanged", "root-change", "fresh"]:
    medians = {}
    for side in ["runner", "runner_every_project", "loop"]:
        chosen = runs(f"{scenario}-{side}")
        if not chosen:
            continue
        walls = [f["wall_s"] for f in chosen]
        cpus = [f["tree_cpu_s"] for f in chosen]
        per_project = statistics.median(processes[f["label"]] for f in chosen) / projects
        exits = "ok" if all(f["exit"] == 0 for f in chosen) else "FAILED"
        medians[side] = (statistics.median(walls), statistics.median(cpus))
        print(f"| {scenario} | {side} | {len(chosen)} | {medians[side][0]:.2f} s | {min(walls):.2f}–{max(walls):.2f} s | {medians[side][1]:.2f} s | {per_project:.2f} | {exits} |")
    ratios.append((scenario, medians["runner"][0] / medians["loop"][0], medians["runner"][1] / medians["loop"][1]))
print()
for scenario, wall, cpu in ratios:
    print(f"- {scenario}: runner/loop wall {wall:.2f}, CPU {cpu:.2f}")
unchanged = statistics.median(f["wall_s"] for f in runs("unchanged-runner"))
print(f"- unchanged: the runner's critical path (`show`, its own `up` durations) {critical:.2f} s; wall / critical path {unchanged / critical:.2f}")
PY
echo "figures: $FIGURES (kept with BENCH_KEEP=1)" >&2
