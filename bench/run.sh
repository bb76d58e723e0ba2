#!/usr/bin/env bash
# Builds and runs the benchmark suite (docs/PERFORMANCE.md): prints the tables and writes JSON to
# bench/results/bench-<UTC time>.json, or to --json PATH. About 5 minutes on 2 cores.
#   bench/run.sh                     everything but the sweep
#   bench/run.sh --with-sweep        also times `rsalab-cli sweep` with its defaults (minutes more)
#   bench/run.sh --quick             fewer repeats (a smoke test, ~2 minutes)
#   bench/run.sh --sections gemm,train --configs large --models transformer,rsa
# RSALAB_BUILD_DIR picks the build directory (default build/); RSALAB_SKIP_BUILD=1 uses it as is.
# Run it on a quiet machine: other processes on the 2 cores show up as spread, and MFU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RSALAB_BUILD_DIR:-$root/build}"
json=""
args=()
with_sweep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    --with-sweep) with_sweep=1; args+=("$1"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$json" ]; then
  json="$root/bench/results/bench-$(date -u +%Y%m%dT%H%M%SZ).json"
fi
if [ "${RSALAB_SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${RSALAB_CMAKE_ARGS:-}
  fi
  targets=(rsalab-bench)
  [ "$with_sweep" = 1 ] && targets+=(rsalab-cli)
  cmake --build "$build" --target "${targets[@]}"
fi
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "bench/run.sh: load average $load before the run (2 cores: above ~0.5 the numbers are noisy)"
cd "$root"
exec "$build/bench/rsalab-bench" --json "$json" --cli "$build/app/rsalab-cli" ${args[@]+"${args[@]}"}
