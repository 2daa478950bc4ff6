#!/usr/bin/env bash
# Runs every benchmark of the runner and replaces the generated tables of BENCHMARKS.md (the prose stays).
#
#   bash benches/run.sh
#
# 1. scheduling efficiency (MARA's aws graph, a 200-project wide graph, a 50-deep chain), with the
#    fake CLI (tests/support/fake-pulumi) and again with benches/sleep-pulumi (no start-up cost);
#    1a. on MARA's graph, the cluster rule against MARA's phase barrier in alternating runs;
#    1b. start priority at --parallelism 4 on a random graph,
# 2. `pulumi` processes per project per operation with the real CLI behind benches/shim,
# 3. `show`/`validate` on a generated 5,000-project provider (and other sizes, to see growth),
#    plus the scheduler's own CPU on large `up`s, 4. the runner's memory while 16 projects print
#    100 MB each, 5. real end-to-end `up` of the `local` provider at parallelism 1 and 4.
# Helpers: gen.py (repositories), measure.py (wall, RSS, CPU), machine.py, report.py (the tables).
# Every critical path and list schedule is the runner's own (`show --format json --durations`).
# report.py replaces only the generated blocks of the benchmarks that ran; the prose of
# BENCHMARKS.md and the blocks of the others stay as they are.
#
# Environment:
#   BENCH_RUNS=3             timed runs per measurement (at least 3; figures are medians)
#   BENCH_STREAM_BYTES=N     bytes each project prints in benchmark 4 (default 104857600)
#   BENCH_BIG_N=N            projects in benchmark 3 (default 5000)
#   BENCH_RULE_RUNS=7        runs of each variant in the cluster-rule comparison (at least 5)
#   BENCH_ONLY="sched ..."   run a subset (sched rule prio procs scale stream e2e); the others' tables stay
#   BENCH_KEEP=1             keep the temporary folder with every raw result
#   BENCH_OUT=FILE           write the report there instead of BENCHMARKS.md (for a subset run)
# Needs Python 3 (standard library only), /usr/bin/time if present (else Python measures), and
# for benchmarks 2 and 5 the real CLI from scripts/install-pulumi.sh (built once, cached).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
FAKE_DIR="$ROOT/tests/support/fake-pulumi"
RUNS="${BENCH_RUNS:-3}"
STREAM_BYTES="${BENCH_STREAM_BYTES:-104857600}"
BIG_N="${BENCH_BIG_N:-5000}"
RULE_RUNS="${BENCH_RULE_RUNS:-7}"
ONLY="${BENCH_ONLY:-sched rule prio procs scale stream e2e}"
if [ "$RUNS" -lt 3 ]; then
    echo "bench: BENCH_RUNS=$RUNS is below 3; using 3" >&2
    RUNS=3
fi
if [ "$RULE_RUNS" -lt 5 ]; then
    echo "bench: BENCH_RULE_RUNS=$RULE_RUNS is below 5; using 5" >&2
    RULE_RUNS=5
fi

log() { printf 'bench: [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
wants() { case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/runner-bench.XXXXXX")"
RESULTS="$WORK/results"
mkdir -p "$RESULTS"
cleanup() {
    if [ -n "${BENCH_KEEP:-}" ]; then
        log "raw results kept in $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

ORIGINAL_PATH="$PATH"

cd "$ROOT"
log "building: cargo build --release"
cargo build --release
RUNNER="$ROOT/target/release/runner"

# The fake CLI starts with `#!/usr/bin/env python3`. Point that at the interpreter itself: a
# launcher in front of it (pyenv's shim is a bash script) would add its own start-up to every
# fake process. Both start-up times are measured and reported.
PYBIN="$WORK/pybin"
mkdir -p "$PYBIN"
PYTHON_EXE="$(python3 -c 'import sys; print(sys.executable)')"
ln -s "$PYTHON_EXE" "$PYBIN/python3"
# measure.py runs with the interpreter itself too: a launcher such as `pyenv exec` would change the
# PATH its children (the runner, hence every `pulumi`) inherit.
MEASURE=("$PYTHON_EXE" "$BENCH_DIR/measure.py")
FAKE_PATH="$FAKE_DIR:$PYBIN:$ORIGINAL_PATH"

REAL_DIR=""
if wants procs || wants e2e; then
    log "finding the real pulumi: scripts/install-pulumi.sh"
    if REAL_DIR="$(bash "$ROOT/scripts/install-pulumi.sh" 2>"$WORK/install-pulumi.log" | tail -n1)" \
        && [ -x "$REAL_DIR/pulumi" ]; then
        log "real pulumi: $("$REAL_DIR/pulumi" version)"
    else
        log "no real pulumi (see install-pulumi output below); benchmarks 2 and 5 are skipped"
        cat "$WORK/install-pulumi.log" >&2 || true
        REAL_DIR=""
    fi
fi

MACHINE="$RESULTS/machine.json"
python3 "$BENCH_DIR/machine.py" "$MACHINE" ${REAL_DIR:+--pulumi "$REAL_DIR/pulumi"}
python3 "$BENCH_DIR/machine.py" "$MACHINE" --load load_before \
    --set "runs=$RUNS" --set "proc_rounds=$RUNS" --set "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
source_desc="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- src Cargo.toml Cargo.lock 2>/dev/null)" ]; then
    source_desc="$source_desc + uncommitted changes in src/"
fi
python3 "$BENCH_DIR/machine.py" "$MACHINE" --set "source=commit $source_desc"
on_path_python="$(PATH="$ORIGINAL_PATH" command -v python3 || true)"
if [ -n "$on_path_python" ] && [ "$(head -c2 "$on_path_python" 2>/dev/null)" = "#!" ]; then
    python3 "$BENCH_DIR/machine.py" "$MACHINE" \
        --set "python_on_path_note=a launcher script, e.g. a pyenv shim, in front of the interpreter"
fi

# ---------------------------------------------------------------------------------------------
# 1. scheduling efficiency with the fake CLI
#    (1a, after it: the cluster rule against MARA's phase barrier on MARA's graph)

plan_json() { # repo provider parallelism durations-file out: the runner's own critical path and schedule
    "$RUNNER" --root "$1" show --provider "$2" --format json -j "$3" --durations "$4" > "$5"
}

fake_env() { # repo [cli-dir]: the environment every fake-CLI run uses
    export PATH="${2:-$FAKE_DIR}:$PYBIN:$ORIGINAL_PATH"
    export FAKE_PULUMI_SCRIPT="$1/script.json" FAKE_PULUMI_STATE="$1/state"
    export PULUMI_CONFIG_PASSPHRASE=x PULUMI_BACKEND_URL="file://$1/backend"
}

sched_bench() { # name graph cli parallelism [gen.py options...]
    local name="$1" graph="$2" cli="$3" parallelism="$4"
    shift 4
    local repo="$WORK/sched-$name" out="$RESULTS/sched/$name" cli_dir="$FAKE_DIR" gen_extra=()
    if [ "$cli" = sleep ]; then
        cli_dir="$BENCH_DIR/sleep-pulumi"
        gen_extra=(--backend-stacks bench) # it cannot create stacks; they exist beforehand
    fi
    mkdir -p "$out"
    if [ "$graph" = mara ]; then
        "$RUNNER" --root "$ROOT" show --provider aws --format json > "$WORK/aws-show.json"
        python3 "$BENCH_DIR/gen.py" mara "$repo" --show-json "$WORK/aws-show.json" --variants "${gen_extra[@]}"
    else
        python3 "$BENCH_DIR/gen.py" "$graph" "$repo" "$@" --variants "${gen_extra[@]}"
    fi
    cp "$repo/graph.json" "$out/graph.json"
    plan_json "$repo" "$graph" "$parallelism" "$repo/durations.json" "$out/plan.json"
    plan_json "$repo" "$graph-deps" "$parallelism" "$repo/durations.json" "$out/plan-deps.json"
    plan_json "$repo" "$graph-barrier" "$parallelism" "$repo/durations.json" "$out/plan-barrier.json"
    printf '{"parallelism": %d, "cli": "%s"}\n' "$parallelism" "$cli" > "$out/settings.json"
    (
        fake_env "$repo" "$cli_dir"
        local args=(up --provider "$graph" --stack bench --non-interactive --parallelism "$parallelism")
        log "sched/$name: warm-up (creates the stacks)"
        "${MEASURE[@]}" --out "$out/measure.jsonl" --label warmup --cwd "$repo" \
            --stdout "$repo/warmup.out" --stderr "$repo/warmup.err" -- "$RUNNER" "${args[@]}"
        for i in $(seq 1 "$RUNS"); do
            rm -f "$repo/state/invocations.jsonl"
            log "sched/$name: run $i/$RUNS"
            "${MEASURE[@]}" --out "$out/measure.jsonl" --label "run-$i" --cwd "$repo" \
                --stdout "$repo/run-$i.out" --stderr "$repo/run-$i.err" \
                -- "$RUNNER" "${args[@]}" --report "json=$out/report-$i.json"
            cp "$repo/state/invocations.jsonl" "$out/invocations-$i.jsonl" 2>/dev/null || true
            # The critical path with the durations this run measured: the best any scheduler could do.
            plan_json "$repo" "$graph" "$parallelism" "$out/report-$i.json" "$out/plan-run-$i.json" || true
        done
        if [ "$name" = mara ]; then
            for i in $(seq 1 "$RUNS"); do
                log "sched/$name: --parallelism 1, run $i/$RUNS"
                "${MEASURE[@]}" --out "$out/measure.jsonl" --label "p1-run-$i" --cwd "$repo" \
                    --stdout "$repo/p1-$i.out" --stderr "$repo/p1-$i.err" \
                    -- "$RUNNER" up --provider "$graph" --stack bench --non-interactive --parallelism 1
            done
        fi
    )
}

if wants sched; then
    (
        export PATH="$FAKE_PATH"
        for i in $(seq 1 10); do
            "${MEASURE[@]}" --out "$RESULTS/fake-version.jsonl" --label direct -- pulumi version
        done
        if [ -n "$on_path_python" ] && [ "$(readlink -f "$on_path_python")" != "$(readlink -f "$PYTHON_EXE")" ]; then
            export PATH="$FAKE_DIR:$ORIGINAL_PATH"
            for i in $(seq 1 10); do
                "${MEASURE[@]}" --out "$RESULTS/fake-version.jsonl" --label on-path -- pulumi version
            done
        fi
        for i in $(seq 1 10); do
            "${MEASURE[@]}" --out "$RESULTS/fake-version.jsonl" --label sleep-cli \
                -- "$BENCH_DIR/sleep-pulumi/pulumi" version
        done
    )
    # The fake CLI (a Python process per operation), as asked; then the same graphs with
    # benches/sleep-pulumi, whose start-up is negligible, to isolate the runner's own overhead.
    sched_bench mara mara fake 4
    sched_bench wide wide fake 256 --n 200 --sleep 0.5
    sched_bench chain chain fake 4 --n 50
    sched_bench mara-sh mara sleep 4
    # Real projects take minutes; at 0.5 s a project, starting 200 processes at once on 2 cores
    # (fork and exec, about 1.6 ms each) is most of what is measured. 5 s keeps the same graph
    # honest about scheduling while still finishing in seconds.
    sched_bench wide-sh wide sleep 256 --n 200 --sleep 5
    sched_bench chain-sh chain sleep 4 --n 50
fi

# ---------------------------------------------------------------------------------------------
# 1a. MARA's aws graph with benches/sleep-pulumi: the shipped cluster rule against the same
#     provider with `strict_phase_barrier = true` (MARA's order). The variants alternate, and
#     swap which goes first every round, so both see the same load.

if wants rule; then
    out="$RESULTS/rule"
    mkdir -p "$out"
    "$RUNNER" --root "$ROOT" show --provider aws --format json > "$WORK/aws-show.json"
    for variant in cluster barrier; do
        python3 "$BENCH_DIR/gen.py" mara "$WORK/rule-$variant" --show-json "$WORK/aws-show.json" \
            --backend-stacks bench --variants
    done
    cp "$WORK/rule-barrier/providers/mara-barrier.toml" "$WORK/rule-barrier/providers/mara.toml"
    cp "$WORK/rule-cluster/graph.json" "$out/graph.json"
    plan_json "$WORK/rule-cluster" mara-deps 4 "$WORK/rule-cluster/durations.json" "$out/plan-deps.json"
    plan_json "$WORK/rule-cluster" mara-barrier 4 "$WORK/rule-cluster/durations.json" "$out/plan-barrier.json"
    printf '{"runs": %d, "parallelism": 4}\n' "$RULE_RUNS" > "$out/settings.json"
    rule_run() { # variant label
        local repo="$WORK/rule-$1"
        (
            fake_env "$repo" "$BENCH_DIR/sleep-pulumi"
            "${MEASURE[@]}" --out "$out/measure.jsonl" --label "$1-$2" --cwd "$repo" \
                --stderr "$repo/$2.err" -- "$RUNNER" up --provider mara --stack bench --non-interactive
        )
    }
    python3 "$BENCH_DIR/machine.py" "$out/load.json" --load before
    rule_run cluster warmup
    rule_run barrier warmup
    for i in $(seq 1 "$RULE_RUNS"); do
        if [ $((i % 2)) -eq 1 ]; then order="cluster barrier"; else order="barrier cluster"; fi
        for variant in $order; do
            log "rule: $variant, run $i/$RULE_RUNS"
            rule_run "$variant" "run-$i"
        done
    done
    python3 "$BENCH_DIR/machine.py" "$out/load.json" --load after
fi

# ---------------------------------------------------------------------------------------------
# 1b. start priority at --parallelism 4 on a random graph: declaration order (no history) against
#     critical-path first (the same graph once the history knows its durations)

if wants prio; then
    out="$RESULTS/prio"
    repo="$WORK/prio"
    mkdir -p "$out"
    python3 "$BENCH_DIR/gen.py" random "$repo" --n 30 --seed 11 --backend-stacks bench
    cp "$repo/graph.json" "$out/graph.json"
    plan_json "$repo" random 4 "$repo/durations.json" "$out/plan.json"
    (
        fake_env "$repo" "$BENCH_DIR/sleep-pulumi"
        args=(up --provider random --stack bench --non-interactive --parallelism 4)
        for i in $(seq 1 "$RUNS"); do
            rm -rf "$repo/.runner/history" # nothing known: declaration order
            log "prio: declaration order, run $i/$RUNS"
            "${MEASURE[@]}" --out "$out/measure.jsonl" --label "declaration-$i" --cwd "$repo" \
                --stderr "$repo/declaration-$i.err" -- "$RUNNER" "${args[@]}"
        done
        for i in $(seq 1 "$RUNS"); do
            log "prio: critical path first, run $i/$RUNS"
            "${MEASURE[@]}" --out "$out/measure.jsonl" --label "critical-$i" --cwd "$repo" \
                --stderr "$repo/critical-$i.err" -- "$RUNNER" "${args[@]}"
        done
    )
fi

# ---------------------------------------------------------------------------------------------
# helpers for the real CLI: a copy of the `local` graph with its own backend. Sections 2 and 5
# measure the runner and the CLI, not a cluster: they run the test suite's stand-in of `local`
# (tests/fixtures/stash-local, every project a pulumi:index:Stash); benches/side_by_side.sh
# runs the shipped one against its real control plane.
STASH_LOCAL="$ROOT/tests/fixtures/stash-local"

local_repo() { # dest [nohooks]
    local dest="$1"
    rm -rf "$dest"
    mkdir -p "$dest/providers" "$dest/config/pulumi" "$dest/projects"
    cp "$STASH_LOCAL/providers/local.toml" "$dest/providers/local.toml"
    cp -r "$STASH_LOCAL/projects/local" "$dest/projects/local"
    cp "$STASH_LOCAL/config/pulumi/environment.example" "$dest/config/pulumi/environment"
    if grep -q '^PULUMI_STACK=' "$dest/config/pulumi/environment"; then
        sed -i 's/^PULUMI_STACK=.*/PULUMI_STACK=bench/' "$dest/config/pulumi/environment"
    fi
    if [ "${2:-}" = nohooks ]; then
        sed -i '/^on_success *=/d' "$dest/providers/local.toml"
        if grep -q on_success "$dest/providers/local.toml"; then
            log "cannot remove the hooks from providers/local.toml"
            return 1
        fi
    fi
}

real_env() { # repo
    export PATH="$REAL_DIR:$ORIGINAL_PATH"
    export PULUMI_BACKEND_URL="file://$1/backend" PULUMI_HOME="$WORK/pulumi-home"
    # Answers the provider's secret prompt, should it have one, without a terminal.
    export LOCAL_CLUSTER_TOKEN="bench-cluster-token"
    unset PULUMI_CONFIG_PASSPHRASE FAKE_PULUMI_SCRIPT FAKE_PULUMI_STATE
}

# ---------------------------------------------------------------------------------------------
# 2. process overhead: `pulumi` processes per project per operation

if wants procs && [ -n "$REAL_DIR" ]; then
    for variant in hooks nohooks; do
        out="$RESULTS/procs/$variant"
        mkdir -p "$out"
        for round in $(seq 1 "$RUNS"); do
            repo="$WORK/procs-$variant"
            local_repo "$repo" "$([ "$variant" = nohooks ] && echo nohooks)"
            "$RUNNER" --root "$repo" show --provider local --format json \
                | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["projects"]))' > "$out/projects"
            mkdir -p "$out/$round"
            (
                real_env "$repo"
                export PATH="$BENCH_DIR/shim:$PATH" BENCH_REAL_PULUMI="$REAL_DIR/pulumi"
                for step in up-fresh up-existing preview refresh destroy; do
                    case "$step" in
                        up-*) args=(up) ;;
                        destroy) args=(destroy --yes) ;;
                        *) args=("$step") ;;
                    esac
                    log "procs/$variant: round $round/$RUNS, $step"
                    export BENCH_SHIM_LOG="$out/$round/$step.log"
                    : > "$BENCH_SHIM_LOG"
                    "${MEASURE[@]}" --out "$out/measure.jsonl" --label "$step-$round" --cwd "$repo" \
                        --stdout "$repo/$step.out" --stderr "$repo/$step.err" \
                        -- "$RUNNER" "${args[@]}" --provider local --stack bench --non-interactive
                done
            )
        done
    done
fi

# ---------------------------------------------------------------------------------------------
# 3. scale: show and validate on a generated provider

if wants scale; then
    out="$RESULTS/scale"
    mkdir -p "$out"
    if [ -x /usr/bin/time ]; then tool="/usr/bin/time"; else tool="python"; fi
    time_one() { # label n repo args...
        local label="$1" n="$2" repo="$3"
        shift 3
        if [ "$tool" = /usr/bin/time ]; then
            (cd "$repo" && /usr/bin/time -f '%e %M %x' -o "$WORK/time.txt" "$RUNNER" "$@" >/dev/null 2>"$WORK/time.err") || true
            read -r wall rss code < <(tail -n1 "$WORK/time.txt")
            printf '{"label": "%s", "n": %d, "wall_s": %s, "peak_rss_kb": %s, "exit": %s}\n' \
                "$label" "$n" "$wall" "$rss" "$code" >> "$out/time.jsonl"
        else
            "${MEASURE[@]}" --out "$WORK/scale-measure.jsonl" --label "$label" --cwd "$repo" -- "$RUNNER" "$@"
            python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(json.dumps({"label": r["label"], "n": int(sys.argv[2]), "wall_s": r["wall_s"], "peak_rss_kb": r["self_peak_rss_kb"], "exit": r["exit"]}))' \
                "$WORK/scale-measure.jsonl" "$n" >> "$out/time.jsonl"
        fi
    }
    # BIG_N is the headline; the other sizes show how time grows with the number of projects.
    for n in $((BIG_N / 4)) $((BIG_N / 2)) "$BIG_N" $((BIG_N * 2)) $((BIG_N * 4)); do
        repo="$WORK/scale-$n"
        log "scale: generating $n projects"
        python3 "$BENCH_DIR/gen.py" big "$repo" --n "$n" --seed 42
        for i in $(seq 1 "$RUNS"); do
            log "scale/$n: run $i/$RUNS"
            time_one "runner show --provider big --format json" "$n" "$repo" show --provider big --format json
            time_one "runner validate --provider big --stack dev" "$n" "$repo" validate --provider big --stack dev
            if [ "$n" = "$BIG_N" ] || [ "$n" = $((BIG_N * 4)) ]; then
                time_one "runner providers" "$n" "$repo" providers
            fi
        done
        [ "$n" = "$BIG_N" ] || rm -rf "$repo"
    done
    # Scheduling cost of a large `up`: the same kind of graph, every project a `sleep 0` through
    # benches/sleep-pulumi, stacks created beforehand; the runner's own CPU time is the figure.
    for n in $((BIG_N / 10)) $((BIG_N / 5)) $((BIG_N * 3 / 10)); do
        repo="$WORK/scale-up-$n"
        python3 "$BENCH_DIR/gen.py" big "$repo" --n "$n" --seed 42 --backend-stacks bench
        for i in $(seq 1 "$RUNS"); do
            log "scale/up $n projects: run $i/$RUNS"
            (
                fake_env "$repo" "$BENCH_DIR/sleep-pulumi"
                "${MEASURE[@]}" --out "$out/up.jsonl" --label "up-$n" --cwd "$repo" \
                    --stdout "$repo/run-$i.out" --stderr "$repo/run-$i.err" \
                    -- "$RUNNER" up --provider big --stack bench --non-interactive --parallelism 4
            )
        done
        rm -rf "$repo"
    done
    toml_size="$(python3 -c 'import os,sys; print("%.0f KiB" % (os.path.getsize(sys.argv[1]) / 1024))' "$WORK/scale-$BIG_N/providers/big.toml")"
    printf '{"n": %d, "seed": 42, "runs": %d, "tool": "%s", "toml_size": "%s"}\n' \
        "$BIG_N" "$RUNS" "$([ "$tool" = python ] && echo 'benches/measure.py' || echo '`/usr/bin/time`')" \
        "$toml_size" > "$out/settings.json"
fi

# ---------------------------------------------------------------------------------------------
# 4. streaming: memory while 16 projects print a lot

if wants stream; then
    out="$RESULTS/stream"
    repo="$WORK/stream"
    mkdir -p "$out"
    python3 "$BENCH_DIR/gen.py" stream "$repo" --n 16 --bytes "$STREAM_BYTES"
    printf '{"projects": 16, "bytes": %d, "parallelism": 16}\n' "$STREAM_BYTES" > "$out/settings.json"
    (
        fake_env "$repo"
        args=(up --provider stream --stack bench --non-interactive --parallelism 16)
        log "stream: quiet warm-up (creates the stacks)"
        FAKE_PULUMI_SCRIPT="$repo/script-quiet.json" "${MEASURE[@]}" --out "$out/measure.jsonl" \
            --label warmup --cwd "$repo" -- "$RUNNER" "${args[@]}"
        for i in $(seq 1 "$RUNS"); do
            rm -rf "$repo/.runner/logs"
            log "stream: run $i/$RUNS"
            "${MEASURE[@]}" --out "$out/measure.jsonl" --label "run-$i" --cwd "$repo" --interval 0.05 \
                --stderr "$repo/run-$i.err" -- "$RUNNER" "${args[@]}"
            size="$(find "$repo/.runner/logs" -name '*.log' -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
            printf '{"label": "run-%d", "bytes": %s}\n' "$i" "$size" >> "$out/logsize.jsonl"
            rm -rf "$repo/.runner/logs"
        done
    )
fi

# ---------------------------------------------------------------------------------------------
# 5. real end to end: the `local` provider at --parallelism 1 and 4

if wants e2e && [ -n "$REAL_DIR" ]; then
    out="$RESULTS/e2e"
    mkdir -p "$out"
    for i in $(seq 1 "$RUNS"); do
        for p in 1 4; do
            repo="$WORK/e2e"
            local_repo "$repo"
            (
                real_env "$repo"
                for kind in fresh reup; do
                    label="p$p-$kind-$i"
                    log "e2e: $label"
                    "${MEASURE[@]}" --out "$out/measure.jsonl" --label "$label" --cwd "$repo" \
                        --stdout "$repo/$label.out" --stderr "$repo/$label.err" \
                        -- "$RUNNER" up --provider local --stack bench --non-interactive \
                        --parallelism "$p" --report "json=$out/report-$label.json"
                done
            )
        done
    done
fi

# ---------------------------------------------------------------------------------------------

python3 "$BENCH_DIR/machine.py" "$MACHINE" --load load_after \
    --set "total_time=$((SECONDS / 60)) min $((SECONDS % 60)) s"
OUT_FILE="${BENCH_OUT:-$ROOT/BENCHMARKS.md}"
python3 "$BENCH_DIR/report.py" "$RESULTS" "$OUT_FILE"
log "wrote $OUT_FILE in $((SECONDS / 60)) min $((SECONDS % 60)) s"
