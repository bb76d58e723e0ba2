#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU check of issue 49: builds the engine against the machine's LibTorch, runs the self-test
# and benchmarks every model against its PyTorch peer on the same device, in 8 minutes on one H100.
# Needs only CMake, ninja, a C++17 compiler and a Python whose PyTorch carries LibTorch (on a GPU
# machine with CUDA and nvcc): no Qt, no GSL, no Eigen (without them the anchors are left out and
# series tasks say "no anchors in this build"), no nlohmann-json or CLI11 (third_party/include).
#
#   scripts/gpu-check.sh                                   CUDA: configs gpu and large, every model
#   scripts/gpu-check.sh --device cpu --configs tiny --quick --rounds 1    the same path on a CPU
#
# Stages, each timed: environment, configure (RSALAB_GUI=OFF, BUILD_TESTING=OFF, LibTorch from
# torch.utils.cmake_prefix_path), build (rsalab-cli and rsalab-bench on every core), selftest
# (`rsalab-cli selftest --device D`; said and skipped where the CLI has no such subcommand),
# anchors (a series task's anchor line), bench (bench/peer/compare.py: per config and round,
# `rsalab-bench --sections train --device D` and bench/peer/peer.py --device D for the same
# models, then one markdown table for docs/PERFORMANCE.md: steps/s, tokens/s, engine ÷ PyTorch,
# MFU against the same runs' float32 and bfloat16 GEMM peaks).
# Options:
#   --device cpu|cuda|cuda:N  (default cuda)      --configs LIST  (default gpu,large: the targets'
#                                                 size first, should the budget cut the rest)
#   --models LIST|all (default all: every model of rsalab-bench --list-models the peer has)
#   --rounds N (default 2; a round is not started when the budget would not hold it)
#   --quick (both bench sides with --quick)       --budget SECONDS (default 480, whole script)
#   --build-dir DIR (default build-gpu)           --out DIR (default $OUT, else DIR/gpu-check)
#   --jobs N (default: every core)                --skip-build (use DIR as it is)
#   --selftest-limit SECONDS (default 120)
# Environment: RSALAB_CMAKE_ARGS (more configure arguments, e.g. a compiler launcher, or
# -DCMAKE_DISABLE_FIND_PACKAGE_GSL=ON to try the GPU machine's build on a full one);
# RSALAB_PEER_PYTHON (the Python with torch; default: python3 if it has torch, else /usr/bin/python3).
# Writes to the out folder: gpu-check.log (everything), stages.txt (each stage's wall time),
# peer.json (every sample), gpu-table.md (the table), configure.log and build.log.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
device=cuda
configs=gpu,large
models=all
rounds=2
quick=0
budget=480
build="$root/build-gpu"
out="${OUT:-}"
jobs="$(nproc)"
skip_build=0
selftest_limit=120
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --budget) budget="$2"; shift 2 ;;
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --out) out="$(realpath -m "$2")"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    --selftest-limit) selftest_limit="$2"; shift 2 ;;
    -h | --help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out="$build/gpu-check"
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1
# The first Python that has torch: RSALAB_PEER_PYTHON, else python3, else Debian's.
py="${RSALAB_PEER_PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import torch' 2>/dev/null; then py="$candidate"; break; fi
  done
fi
start=$(date +%s.%N)
stage_start=$start
status=0
: > "$out/stages.txt"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# Ends the current stage: its wall time on screen and in stages.txt.
stage_done() {
  local t
  t=$(elapsed "$stage_start")
  printf '%-10s %7s s  %s\n' "$1" "$t" "$2" | tee -a "$out/stages.txt"
  stage_start=$(now)
}
left() { awk -v a="$start" -v b="$(now)" -v t="$budget" 'BEGIN { printf "%d", t - (b - a) }'; }
heading() { printf '\n== %s (%s s in)\n' "$1" "$(elapsed "$start")"; }

heading "environment"
echo "gpu-check: device $device, configs $configs, models $models, rounds $rounds," \
  "budget $budget s, $jobs jobs; out $out"
if [ -z "$py" ] || ! "$py" -c 'import torch' 2>/dev/null; then
  echo "gpu-check: no Python here imports torch (${py:-python3, /usr/bin/python3}); set" \
    "RSALAB_PEER_PYTHON"
  exit 1
fi
"$py" - "$device" <<'EOF' || exit 1
import sys, torch
d = sys.argv[1]
cuda = torch.version.cuda or "none"
print(f"PyTorch {torch.__version__}, CUDA {cuda}, cmake prefix {torch.utils.cmake_prefix_path}")
if d.startswith("cuda"):
    if not torch.cuda.is_available():
        sys.exit(f"gpu-check: --device {d}, but PyTorch sees no GPU")
    print("GPU:", torch.cuda.get_device_name(torch.device(d)))
EOF
command -v nvidia-smi >/dev/null && [ "$device" != cpu ] &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
stage_done environment ""

if [ "$skip_build" = 0 ]; then
  heading "configure"
  prefix="$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
  prefix_arg=()
  if [ -d "$prefix/Torch" ]; then
    prefix_arg=(-DCMAKE_PREFIX_PATH="$prefix")
  else
    echo "gpu-check: no $prefix/Torch (a distribution's split package): CMake's own search"
  fi
  # shellcheck disable=SC2086  # RSALAB_CMAKE_ARGS is a list of arguments
  if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRSALAB_GUI=OFF \
    -DBUILD_TESTING=OFF -DRSALAB_EXTRA_INCLUDE="$root/third_party/include" \
    ${prefix_arg[@]+"${prefix_arg[@]}"} ${RSALAB_CMAKE_ARGS:-} >"$out/configure.log" 2>&1; then
    tail -40 "$out/configure.log"
    stage_done configure "FAILED"
    exit 1
  fi
  # LibTorch found, and whether this build has the anchors (the warning's first lines).
  grep -E -A2 "Found Torch|CUDA|not found: building" "$out/configure.log" | head -12
  stage_done configure "RSALAB_GUI=OFF"

  heading "build"
  # -k 0: a bench that fails to build still leaves the CLI (and its selftest) to run.
  if ! cmake --build "$build" --target rsalab-cli rsalab-bench -j "$jobs" -- -k 0 \
    >"$out/build.log" 2>&1; then
    grep -E "error|Error" "$out/build.log" | head -40
    status=1
  fi
  tail -1 "$out/build.log"
  stage_done build "rsalab-cli rsalab-bench, -j $jobs$([ "$status" = 0 ] || echo ", FAILED")"
fi
cli="$build/app/cli/rsalab-cli"
bench="$build/bench/rsalab-bench"
if [ ! -x "$cli" ]; then
  echo "gpu-check: no $cli: nothing to run"
  exit 1
fi

heading "selftest"
# `selftest --help` alone does not tell: CLI11 answers a top-level --help for an unknown word.
if "$cli" --help 2>&1 | grep -qE '^ +selftest ' && "$cli" selftest --help >/dev/null 2>&1; then
  if timeout "$selftest_limit" "$cli" selftest --device "$device"; then
    stage_done selftest "passed"
  else
    code=$?
    status=1
    [ "$code" = 124 ] && echo "gpu-check: selftest passed its limit of $selftest_limit s: stopped"
    stage_done selftest "FAILED (exit status $code)"
  fi
else
  echo "gpu-check: this rsalab-cli has no selftest subcommand (issue 49, ask 1): skipped"
  stage_done selftest "missing, skipped"
fi

heading "anchors"
# A series task in this build: its anchor line says whether the anchors were fitted.
anchors=$(timeout 60 "$cli" train --series airpassengers --model dlinear --steps 1 --device "$device" \
  --out "$out/anchors-run" 2>&1 | grep -m2 "^anchors:")
echo "${anchors:-gpu-check: no anchors line}"
stage_done anchors "${anchors%%$'\n'*}"

heading "bench"
if [ ! -x "$bench" ]; then
  echo "gpu-check: no $bench (its build failed, above): no benchmark"
  stage_done bench "no rsalab-bench"
  exit 1
fi
compare=("$root/bench/peer/compare.py" --bench "$bench" --python "$py" --device "$device"
  --configs "$configs" --models "$models" --rounds "$rounds" --threads "$jobs"
  --json "$out/peer.json" --markdown "$out/gpu-table.md")
[ "$quick" = 1 ] && compare+=(--quick)
# The rounds stop when the budget would not hold another; a hard limit 20 s before the end.
bench_left=$(($(left) - 20))
[ "$bench_left" -gt 30 ] || bench_left=30
compare+=(--budget "$bench_left")
if ! timeout "$bench_left" "$py" "${compare[@]}"; then
  status=1
fi
stage_done bench "compare.py, $configs"

heading "table ($out/gpu-table.md)"
[ -f "$out/gpu-table.md" ] && cat "$out/gpu-table.md"
echo
echo "stages (wall time):"
cat "$out/stages.txt"
total=$(elapsed "$start")
echo "total: $total s (budget $budget s)"
echo "total      $total s" >>"$out/stages.txt"
exit $status
