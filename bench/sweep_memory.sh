#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GUI's memory over a long sample-efficiency sweep (docs/PERFORMANCE.md): starts the app under
# Xvfb with `rsalab --sweep SPEC` and samples its resident set (VmRSS) every INTERVAL seconds,
# with the runs finished so far (the run folders the sweep has written), until the sweep's
# sweep.json appears (the sweep has ended) or LIMIT seconds pass. Prints CSV: seconds, rss_mib,
# runs_done; the last line is the peak.
#   bench/sweep_memory.sh [SPEC] [INTERVAL] [LIMIT]
# SPEC defaults to the 350-run sweep rnn,lstm,gru,transformer,rsa,linear,starsaber:
# 16,64,256,1024,4096:10:20000. Uses build/app/gui/rsalab (RSALAB_BUILD_DIR picks another build).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
app="${RSALAB_BUILD_DIR:-$root/build}/app/gui/rsalab"
spec="${1:-rnn,lstm,gru,transformer,rsa,linear,starsaber:16,64,256,1024,4096:10:20000}"
interval="${2:-30}"
limit="${3:-14400}"
[ -x "$app" ] || { echo "sweep_memory.sh: build the app first ($app)" >&2; exit 1; }
home=$(mktemp -d)  # the app's data folder (where the sweep writes runs/ and sweep.json)
trap 'pkill -P "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; rm -rf "$home"' EXIT
XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" xvfb-run -a "$app" --sweep "$spec" \
  >"$home/app.log" 2>&1 &
pid=$!
start=$(date +%s)
peak=0
echo "seconds,rss_mib,runs_done"
while sleep "$interval"; do
  rsalab=$(pgrep -P "$pid" -f "app/gui/rsalab" || true)
  [ -n "$rsalab" ] || { echo "sweep_memory.sh: the app is gone (see its log)" >&2; cat "$home/app.log" >&2; exit 1; }
  rss_kib=$(awk '/VmRSS/ {print $2}' "/proc/$rsalab/status" 2>/dev/null || echo 0)
  folder=$(find "$home/data" -type d -path "*/sweeps/*" -prune 2>/dev/null | head -1 || true)
  done_runs=0
  [ -n "$folder" ] && done_runs=$(ls "$folder/runs" 2>/dev/null | wc -l)
  now=$(( $(date +%s) - start ))
  mib=$(( rss_kib / 1024 ))
  [ "$mib" -gt "$peak" ] && peak=$mib
  echo "$now,$mib,$done_runs"
  if [ -n "$folder" ] && [ -f "$folder/sweep.json" ]; then break; fi
  [ "$now" -lt "$limit" ] || break
done
echo "peak,$peak,"
