#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The forecasting anchors' cost (docs/PERFORMANCE.md): for each bundled real series, and for any
# CSV given (e.g. ETTh1.csv), `rsalab-cli train --steps 1` with the anchors of each --anchors mode,
# timing the whole command (task, anchors, one step, the test evaluation: an upper bound on the
# time to the first step) and printing the anchors' own time from the CLI's progress lines.
#   bench/anchors.sh [--horizon H] [--modes all,fast] [CSV ...]
# Uses build/app/cli/rsalab-cli (RSALAB_BUILD_DIR picks another build). Prints one markdown table.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${RSALAB_BUILD_DIR:-$root/build}/app/cli/rsalab-cli"
horizon=24
modes="all,fast"
csvs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --horizon) horizon="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    *) csvs+=("$1"); shift ;;
  esac
done
[ -x "$cli" ] || { echo "anchors.sh: build rsalab-cli first ($cli)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| series | H | --anchors | fits | anchors s | whole command s (≥ time to first step) | chosen forms |"
echo "|---|---|---|---|---|---|---|"
run() {  # label, horizon, mode, task args...
  local label="$1" h="$2" mode="$3"
  shift 3
  local log="$out/log" start end
  start=$(date +%s%N)
  "$cli" train --model rsa "$@" --horizon "$h" --steps 1 --anchors "$mode" --out "$out/run" \
    >"$log" 2>&1 || { echo "| $label | $h | $mode | failed: $(tail -1 "$log") |"; return; }
  end=$(date +%s%N)
  local fits secs forms
  fits=$(grep -c '^anchors: \[' "$log" || true)
  secs=$(sed -n 's/^anchors: [0-9]* fitted in \([0-9.e+-]*\) s$/\1/p' "$log" | tail -1)
  forms=$(sed -n 's/^anchors: \[[0-9/]*\] \(.*\) on [^:]*: \(.*\), [0-9.e+-]* s$/\1: \2/p' "$log" |
    sort -u | head -6 | paste -sd ';' | sed 's/;/; /g')
  local ms=$(((end - start) / 1000000))
  printf '| %s | %s | %s | %s | %s | %d.%d | %s |\n' "$label" "$h" "$mode" "$fits" "${secs:-–}" \
    $((ms / 1000)) $((ms % 1000 / 100)) "$forms"
}
IFS=',' read -ra mode_list <<<"$modes"
for s in airpassengers lakehuron lynx nottem treering ukgas; do
  for m in "${mode_list[@]}"; do run "$s" 1 "$m" --series "$s"; done
done
for f in "${csvs[@]}"; do
  for m in "${mode_list[@]}"; do run "$(basename "$f")" "$horizon" "$m" --csv "$f"; done
done
