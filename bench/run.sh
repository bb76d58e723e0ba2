#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and runs the benchmark suite (docs/PERFORMANCE.md): prints the tables and writes JSON to
# bench/results/bench-<UTC time>.json (or --json PATH). Everything, the default sweep included,
# takes about 6 minutes on 2 cores (03:21 UTC run: 5 min 34 s). Run it after scripts/test.sh (which installs and builds).
#   bench/run.sh                     everything: engine suite + default sweep + GUI latency
#   bench/run.sh --no-sweep          without timing `rsalab-cli sweep` (~3 minutes less)
#   bench/run.sh --quick             fewer repeats (a smoke test)
#   bench/run.sh --sections gemm,train --configs large --models transformer,rsa
#   bench/run.sh --peer-only         only engine vs PyTorch peer (bench/peer/compare.py)
# After the engine suite (when it includes section 2, train) the PyTorch peer (bench/peer/) times
# the same models and configs interleaved with the engine, --peer-rounds N rounds (default 3, an
# estimated 1.5-2 minutes each on a quiet machine; 2 short ones with --quick), and prints engine ms, PyTorch ms, the ratio
# and the issue-21 verdicts; JSON: <json>-peer.json. --no-peer leaves it out. It needs Debian's
# python3-torch (installed here when `/usr/bin/python3 -c 'import torch'` fails and apt can;
# RSALAB_PEER_PYTHON picks another Python with torch).
# RSALAB_BUILD_DIR picks the build directory (default build/); RSALAB_SKIP_BUILD=1 uses it as is.
# Run it on a quiet machine: other processes on the 2 cores show up as spread, and in MFU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RSALAB_BUILD_DIR:-$root/build}"
json=""
args=()
with_sweep=1
partial=0
with_peer=1
peer_only=0
peer_rounds=""
quick=0
sections=""
configs="tiny,small,large"
models=""  # default: every card with has_peer (bench/peer/cards.py), once rsalab-cli is built
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    --no-sweep) with_sweep=0; shift ;;
    --with-sweep) with_sweep=1; shift ;;
    --no-peer) with_peer=0; shift ;;
    --peer-only) peer_only=1; shift ;;
    --peer-rounds) peer_rounds="$2"; shift 2 ;;
    --sections) sections="$2"; partial=1; args+=("$1" "$2"); shift 2 ;;
    --configs) configs="$2"; partial=1; args+=("$1" "$2"); shift 2 ;;
    --models) models="$2"; partial=1; args+=("$1" "$2"); shift 2 ;;
    --quick) quick=1; args+=("$1"); shift ;;
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
  targets=(rsalab-bench rsalab-cli rsalab-peer-check)
  grep -q "rsalab-gui-bench" "$build/build.ninja" 2>/dev/null && targets+=(rsalab-gui-bench)
  cmake --build "$build" --target "${targets[@]}"
fi
load="$(cut -d' ' -f1 /proc/loadavg)"
echo "bench/run.sh: load average $load before the run (2 cores: above ~0.5 the numbers are noisy)"
cd "$root"
status=0
if [ "$peer_only" = 0 ]; then
  "$build/bench/rsalab-bench" --json "$json" --cli "$build/app/cli/rsalab-cli" ${args[@]+"${args[@]}"} ||
    status=$?
  if [ "$partial" = 0 ] && [ -x "$build/bench/rsalab-gui-bench" ]; then
    echo
    QT_QPA_PLATFORM=offscreen "$build/bench/rsalab-gui-bench" --json "${json%.json}-gui.json"
  fi
fi
# The PyTorch peer: when section 2 ran (or --peer-only), unless --no-peer.
if [ "$with_peer" = 1 ] && { [ "$peer_only" = 1 ] || [ -z "$sections" ] ||
  [[ ",$sections," == *,train,* ]]; }; then
  echo
  py="${RSALAB_PEER_PYTHON:-/usr/bin/python3}"  # Debian's Python, where python3-torch installs
  if ! "$py" -c 'import torch' 2>/dev/null; then
    echo "bench/run.sh: installing python3-torch for the PyTorch peer"
    sudo=""; [ "$(id -u)" != 0 ] && command -v sudo >/dev/null && sudo="sudo -n"
    { $sudo apt-get install -y python3-torch ||
      { $sudo apt-get update && $sudo apt-get install -y python3-torch; }; } >/dev/null 2>&1 || true
  fi
  if "$py" -c 'import torch' 2>/dev/null; then
    peer_args=(--bench "$build/bench/rsalab-bench" --python "$py" --configs "$configs"
      --models "$models" --json "${json%.json}-peer.json")
    [ "$quick" = 1 ] && peer_args+=(--quick --rounds "${peer_rounds:-2}")
    [ "$quick" = 0 ] && peer_args+=(--rounds "${peer_rounds:-3}")
    "$py" "$root/bench/peer/compare.py" "${peer_args[@]}" || status=$?
  else
    echo "bench/run.sh: skipping the PyTorch peer: $py cannot import torch and" \
      "python3-torch could not be installed (apt-get install python3-torch, as root)"
  fi
fi
# One list of every target's verdict, from the JSON files this run wrote.
if [ -f "$json" ] || [ -f "${json%.json}-peer.json" ]; then
  "${RSALAB_PEER_PYTHON:-/usr/bin/python3}" "$root/bench/verdicts.py" "$json" || true
fi
exit $status
