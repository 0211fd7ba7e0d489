#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each, one target after another, and prints
# the executions of each. A target stops early at RUNS executions (default 1000000).
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).
#
#   fuzz/run.sh [-w WORKERS] SECONDS [RUNS] [TARGET...]
#
# -w WORKERS (default 1) runs each target as WORKERS libFuzzer processes at once (one per
# core: `-w 2` on a 2-core machine), each stopping at RUNS/WORKERS executions or SECONDS,
# sharing one corpus directory (libFuzzer reloads it, so what one finds the others
# mutate), as libFuzzer's own `-jobs=N -workers=N` does but with every process's count
# read back. The line of a target sums the executions and CPU seconds of its workers;
# "seconds" is libFuzzer's own time of the longest worker (the build excluded), "CPU s"
# the user+system time of all of them (from /usr/bin/time where installed), so
# "exec/CPU-s" is what one dedicated core does whatever the load of the machine.
#
# Built once, before the first target (`cargo +nightly fuzz build -s none -a
# --no-trace-compares`), and each target's binary copied to a scratch directory, so a
# rebuild during a long run does not change what runs. Without a sanitizer (`-s none`:
# the workspace forbids `unsafe`, so the checks that matter are Rust's own, kept on with
# `-a`, debug assertions and overflow checks), in release mode, and without libFuzzer's
# comparison tracing (`--no-trace-compares`: perf found `__sanitizer_cov_trace_cmp8`
# 44-50% of the `design` and 35% of the `plan` time, issue 17; the targets decode their
# input with `arbitrary`, so a compared value seldom maps back to input bytes);
# FUZZ_TRACE_COMPARES=1 builds with it. Inputs start from fuzz/seeds/<target>/ and the
# crashes already found in fuzz/regressions/<target>/; new corpus entries go to a scratch
# directory and crashes to fuzz/artifacts/<target>/. Exit 1 when a target crashed.
# FUZZ_SEED=N fixes libFuzzer's seed (worker i takes N+i): with one worker and a RUNS
# count reached before SECONDS, the inputs are the same on every machine (CI's smoke).
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  echo "usage: fuzz/run.sh [-w WORKERS] SECONDS [RUNS] [TARGET...]" >&2
  exit 2
}
workers=1
if [ "${1:-}" = "-w" ]; then
  [ $# -ge 2 ] || usage
  workers=$2
  shift 2
fi
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || usage
[ $# -ge 1 ] || usage
seconds=$1
runs=${2:-1000000}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

flags=(-s none -a)
[ "${FUZZ_TRACE_COMPARES:-0}" = 1 ] || flags+=(--no-trace-compares)
cargo +nightly fuzz build "${flags[@]}"
bindir="target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  cp "$bindir/$t" "$scratch/$t.bin"
done
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f 'cpu %U %S')
per_worker=$(( (runs + workers - 1) / workers ))

status=0
printf '%-14s %12s %8s %8s %11s  %s\n' target executions seconds "CPU s" exec/CPU-s result
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t" "artifacts/$t"
  dirs=("$scratch/$t")
  for d in "seeds/$t" "regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  pids=()
  for ((i = 0; i < workers; i++)); do
    seed=()
    [ -n "${FUZZ_SEED:-}" ] && seed=(-seed=$((FUZZ_SEED + i)))
    "${timer[@]}" "$scratch/$t.bin" "${dirs[@]}" \
      -max_total_time="$seconds" -runs="$per_worker" "${seed[@]}" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="artifacts/$t/" >"$scratch/$t.$i.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do
    wait "$p" || rc=$?
  done
  execs=0 secs=0 cpu=0 crash=""
  for ((i = 0; i < workers; i++)); do
    log="$scratch/$t.$i.log"
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    execs=$(( execs + ${n:-0} ))
    # libFuzzer's own count and time ("Done N runs in S second(s)").
    s=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 | awk '{ print $5 }' || true)
    [ -n "$s" ] && [ "$s" -gt "$secs" ] && secs=$s
    c=$(grep -E '^cpu [0-9.]+ [0-9.]+$' "$log" | tail -1 | awk '{ print $2 + $3 }' || true)
    cpu=$(awk -v a="$cpu" -v b="${c:-0}" 'BEGIN { print a + b }')
    if [ -z "$crash" ] && grep -qE "panicked at|ERROR: libFuzzer" "$log"; then
      crash=$(grep -m1 -E "panicked at|ERROR: libFuzzer" "$log" || true)
      cp "$log" "artifacts/$t/run.log"
    fi
  done
  if [ -n "${timer[*]}" ]; then
    rate=$(awk -v n="$execs" -v c="$cpu" 'BEGIN { if (c > 0) printf "%.0f", n / c; else print "-" }')
    cpu=$(awk -v c="$cpu" 'BEGIN { printf "%.1f", c }')
  else
    rate=- cpu=-
  fi
  if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
    result=ok
  else
    result="CRASH (exit $rc): $crash"
    status=1
  fi
  printf '%-14s %12s %8s %8s %11s  %s\n' "$t" "$execs" "$secs" "$cpu" "$rate" "$result"
done
exit $status
