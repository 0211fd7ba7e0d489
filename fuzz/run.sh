#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each, one after another in one process each
# (libFuzzer's default; `-jobs=1` would fork a child writing to fuzz-0.log), and prints
# the executions of each. A target stops early at RUNS executions
# (default 1000000). Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz --locked`).
#
#   fuzz/run.sh SECONDS [RUNS] [TARGET...]
#
# Built without a sanitizer (`-s none`: the workspace forbids `unsafe`, so the checks
# that matter are Rust's own, kept on with `-a`, debug assertions and overflow checks)
# and in release mode. Inputs start from fuzz/seeds/<target>/ and the crashes already
# found in fuzz/regressions/<target>/; new corpus entries go to a scratch directory and
# crashes to fuzz/artifacts/<target>/. Exit 1 when a target crashed. FUZZ_SEED=N fixes
# libFuzzer's seed: with a RUNS count reached before SECONDS, the inputs are the same on
# every machine (CI's smoke).
set -euo pipefail
cd "$(dirname "$0")"

if [ $# -lt 1 ]; then
  echo "usage: fuzz/run.sh SECONDS [RUNS] [TARGET...]" >&2
  exit 2
fi
seconds=$1
runs=${2:-1000000}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

cargo +nightly fuzz build -s none -a

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
printf '%-14s %12s %8s %10s  %s\n' target executions seconds exec/s result
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t" "artifacts/$t"
  dirs=("$scratch/$t")
  for d in "seeds/$t" "regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  log="$scratch/$t.log"
  start=$(date +%s.%N)
  set +e
  cargo +nightly fuzz run -s none -a "$t" "${dirs[@]}" -- \
    -max_total_time="$seconds" -runs="$runs" \
    ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  execs=${execs:-0}
  # libFuzzer's own count and time ("Done N runs in S second(s)"), without the build.
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)
  if [ -n "$done_line" ]; then
    secs=$(echo "$done_line" | awk '{ print $5 }')
  else
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  fi
  rate=$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="CRASH (exit $rc): $(grep -m1 -E 'panicked|ERROR|SUMMARY' "$log" || true)"
    cp "$log" "artifacts/$t/run.log"
    status=1
  fi
  printf '%-14s %12s %8s %10s  %s\n' "$t" "$execs" "$secs" "$rate" "$result"
done
exit $status
