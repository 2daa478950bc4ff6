#!/usr/bin/env bash
# Runs each fuzz target of fuzz/ for a fixed time and prints, per target, the runs executed and
# whether a crash (panic, timeout or out-of-memory) was found.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: 60 seconds each, every target
#
# Needs a nightly toolchain and cargo-fuzz:
#   rustup toolchain install nightly --profile minimal && cargo install cargo-fuzz
# Each corpus starts from the repository's own inputs (fixtures, shipped providers, the hostile
# corpus, fuzz/seeds/) and grows in fuzz/corpus/ (not committed); fuzz/dictionaries/ holds each
# format's tokens. A crash is saved under fuzz/artifacts/ and
# replays with `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/FILE`; turn it into a case
# in tests/hostile/ or a unit test, then fix it. Exit status: 0 when nothing was found, 1 otherwise.
set -euo pipefail

seconds="${1:-60}"
shift || true
all_targets=(environment_file stack_config provider_file event_log)
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all_targets[@]}")

case "$seconds" in
    '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not \`$seconds\`" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz_dir="$root/fuzz"
log_dir="$fuzz_dir/target/fuzz-logs"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: a nightly toolchain is needed: rustup toolchain install nightly --profile minimal" >&2
    exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is needed: cargo install cargo-fuzz" >&2
    exit 2
fi

# Seeds: every file matching the globs, copied under a name made from its contents.
seed() {
    local target="$1"
    shift
    local dir="$fuzz_dir/corpus/$target"
    mkdir -p "$dir"
    local file
    for file in "$@"; do
        [ -f "$file" ] || continue
        [ "$(stat -c %s "$file")" -le 65536 ] || continue
        cp "$file" "$dir/seed-$(sha1sum "$file" | cut -c1-16)"
    done
}

cd "$root"
shopt -s nullglob
seed environment_file tests/fixtures/mara/environment/* config/pulumi/environment* tests/hostile/*/config/pulumi/environment
seed stack_config tests/fixtures/mara/Pulumi.* tests/fixtures/mara/stack_config/* config/pulumi/Pulumi.* \
    tests/hostile/*/config/pulumi/Pulumi.*.yaml
seed provider_file providers/*.toml providers/common/*.toml tests/hostile/*/providers/*.toml
seed event_log tests/fixtures/pulumi-events/*.jsonl
for target in "${all_targets[@]}"; do
    seed "$target" fuzz/seeds/"$target"/* # inputs that once crashed, kept as regressions
done
shopt -u nullglob

echo "fuzz: building the targets (nightly, sanitizer coverage)" >&2
(cd "$fuzz_dir" && cargo +nightly fuzz build >&2)

mkdir -p "$log_dir"
found=0
printf '%-18s %8s %14s  %s\n' target seconds runs result
for target in "${targets[@]}"; do
    log="$log_dir/$target.log"
    mkdir -p "$fuzz_dir/artifacts/$target"
    options=(-max_total_time="$seconds" -max_len=32768 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
    if [ -f "$fuzz_dir/dictionaries/$target.dict" ]; then
        options+=(-dict="dictionaries/$target.dict")
    fi
    status=0
    (cd "$fuzz_dir" && cargo +nightly fuzz run "$target" "corpus/$target" -- "${options[@]}") >"$log" 2>&1 || status=$?
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n1 | grep -o '[0-9]*$' || true)"
    if [ -z "$runs" ]; then
        # A crash ends the run before the final stats: take the last progress line's count.
        runs="$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#' || true)"
    fi
    artifact="$(grep -oE "(Test unit written to|written to) [^ ]+" "$log" | tail -n1 | awk '{print $NF}' || true)"
    if [ "$status" -eq 0 ] && [ -z "$artifact" ]; then
        result="no crash"
    else
        found=1
        kind="$(grep -oE 'ERROR: libFuzzer: [a-z-]+|panicked at [^:]+:[0-9]+' "$log" | head -n1 || true)"
        result="CRASH (${kind:-exit $status}) ${artifact:-see $log}"
    fi
    printf '%-18s %8s %14s  %s\n' "$target" "$seconds" "${runs:-?}" "$result"
done
echo "fuzz: logs in ${log_dir#"$root"/}" >&2
exit "$found"
