#!/usr/bin/env bash
# `pulumi` operations an affected run starts on MARA's aws graph with the fake CLI, with and
# without skipping dependents whose upstream outputs did not change (issue 23).
#
#   bash benches/skip_unchanged.sh            (RUNNER=path/to/runner to use another build)
#
# The repository is benches/gen.py's MARA copy in a git repository. After a first `up` of all
# 15 projects, `infrastructure/aws/vpc`'s program changes (uncommitted): `up --affected` selects
# it and its 14 dependents. The fake CLI's scripted outputs (FAKE_PULUMI_SCRIPT) decide whether
# the VPC's outputs changed. Counted: `up` invocations in the fake CLI's own record.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
RUNNER="${RUNNER:-$ROOT/target/debug/runner}"
[ -x "$RUNNER" ] || (cd "$ROOT" && cargo build --quiet)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/runner-skip.XXXXXX")"
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"' EXIT
REPO="$WORK/repo"

"$RUNNER" --root "$ROOT" show --provider aws --format json > "$WORK/aws-show.json"
python3 "$BENCH_DIR/gen.py" mara "$REPO" --show-json "$WORK/aws-show.json"
mv "$REPO/script.json" "$WORK/script.json"
export PATH="$ROOT/tests/support/fake-pulumi:$PATH"
export FAKE_PULUMI_SCRIPT="$WORK/script.json" FAKE_PULUMI_STATE="$WORK/state"
export PULUMI_CONFIG_PASSPHRASE=bench-passphrase-not-secret PULUMI_BACKEND_URL="file://$WORK/backend"
export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK"

git_() { git -C "$REPO" -c user.name=b -c user.email=b@b -c commit.gpgsign=false "$@"; }
printf '.runner/\nconfig/pulumi/Pulumi.*.yaml\n' > "$REPO/.gitignore"
git_ init -q -b main && git_ add -A && git_ commit -qm first
run() { # label, runner arguments...
    local label="$1"
    shift
    rm -f "$WORK/state/invocations.jsonl"
    (cd "$REPO" && "$RUNNER" up --provider mara --stack bench --non-interactive "$@" >"$WORK/$label.out" 2>"$WORK/$label.err") || {
        cat "$WORK/$label.err" >&2
        exit 1
    }
    local ups
    ups="$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if (lambda e: e.get("event") == "start" and e.get("op") == "up")(json.loads(l))))' \
        "$WORK/state/invocations.jsonl")"
    local unchanged
    unchanged="$(grep -c ' unchanged: ' "$WORK/$label.err" || true)"
    printf '| %s | %s | %s |\n' "$label" "$ups" "$unchanged"
}
set_vpc_outputs() { # JSON object
    python3 - "$WORK/script.json" "$1" <<'PY'
import json, sys
script = json.load(open(sys.argv[1]))
script["projects"]["mara-infrastructure-aws-vpc"]["outputs"] = json.loads(sys.argv[2])
json.dump(script, open(sys.argv[1], "w"), indent=1)
PY
}
touch_vpc() { printf '# %s\n' "$1" >> "$REPO/projects/infrastructure/aws/vpc/Pulumi.yaml"; }

set_vpc_outputs '{"vpc_id": "vpc-1", "subnets": ["a", "b"]}'
echo '| run | `pulumi up` processes | projects skipped as unchanged |'
echo '|---|---:|---:|'
run "first up, all 15"
printf 'bench\n' > "$REPO/README.md" && git_ add -A && git_ commit -qm second
touch_vpc "a change no output shows"
run "vpc changed, outputs the same: up --affected" --affected
touch_vpc "and again"
run "vpc changed again: up --affected --no-skip-unchanged" --affected --no-skip-unchanged
touch_vpc "one more"
set_vpc_outputs '{"vpc_id": "vpc-2", "subnets": ["a", "b"]}'
run "vpc output vpc_id changed: up --affected" --affected
