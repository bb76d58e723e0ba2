#!/usr/bin/env bash
# Builds and runs the benchmark suite (docs/PERFORMANCE.md): prints the tables and writes JSON to
# bench/results/bench-<UTC time>.json (or --json PATH). Everything, the default sweep included,
# takes about 6 minutes on 2 cores (03:21 UTC run: 5 min 34 s). Run it after scripts/test.sh (which installs and builds).
#   bench/run.sh                     everything: engine suite + default sweep + GUI latency
#   bench/run.sh --no-sweep          without timing `rsalab-cli sweep` (~3 minutes less)
#   bench/run.sh --quick             fewer repeats (a smoke test)
#   bench/run.sh --sections gemm,train --configs large --models transformer,rsa
# RSALAB_BUILD_DIR picks the build directory (default build/); RSALAB_SKIP_BUILD=1 uses it as is.
# Run it on a quiet machine: other processes on the 2 cores show up as spread, and in MFU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RSALAB_BUILD_DIR:-$root/build}"
json=""
args=()
with_sweep=1
partial=0
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    --no-sweep) with_sweep=0; shift ;;
    --with-sweep) with_sweep=1; shift ;;
    --sections|--configs|--models) partial=1; args+=("$1" "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
# A partial run (--sections/--configs/--models) leaves the sweep and the GUI out.
[ "$partial" = 1 ] && with_sweep=0
[ "$with_sweep" = 1 ] && args+=(--with-sweep)
if [ -z "$json" ]; then
  json="$root/bench/results/bench-$(date -u +%Y%m%dT%H%M%SZ).json"
fi
if [ "${RSALAB_SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${RSALAB_CMAKE_ARGS:-}
  fi
  targets=(rsalab-bench rsalab-cli)
  grep -q "rsalab-gui-bench" "$build/build.ninja" 2>/dev/null && targets+=(rsalab-gui-bench)
  cmake --build "$build" --target "${targets[@]}"
fi
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "bench/run.sh: load average $load before the run (2 cores: above ~0.5 the numbers are noisy)"
cd "$root"
"$build/bench/rsalab-bench" --json "$json" --cli "$build/app/rsalab-cli" ${args[@]+"${args[@]}"}
status=$?
if [ "$partial" = 0 ] && [ -x "$build/bench/rsalab-gui-bench" ]; then
  echo
  QT_QPA_PLATFORM=offscreen "$build/bench/rsalab-gui-bench" --json "${json%.json}-gui.json"
fi
exit $status
