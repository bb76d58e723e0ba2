#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's pictures, made by the app itself (rsalab --screenshot under Xvfb) into docs/images/:
#   launch-60s.png          the default launch after 60 s of training
#   inspector-rem-rsa.png   RSA's REMs in the Inspector (the same launch, RSA's first run)
#   regime-map.png          the Figure 1 regime map (runs/figure1, swept here when missing)
#   real-series-airpassengers.png  AirPassengers (H = 12) beside its anchors after 60 s
#   paper-table.png         the RSA paper's table tab on docs/data/paper_table.json
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default build/; needs rsalab and rsalab-cli built)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${RSALAB_BUILD_DIR:-$root/build}}"
app="$build/app/gui/rsalab" cli="$build/app/cli/rsalab-cli" out="$root/docs/images"
for exe in "$app" "$cli"; do
  [ -x "$exe" ] || { echo "screenshots.sh: $exe is not built (scripts/run.sh builds it)" >&2; exit 1; }
done
command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run is missing (apt install xvfb)" >&2; exit 1; }
mkdir -p "$out"
# A new user's settings (the default dock layout, not this machine's saved one) on a 1920×1200
# screen, where the window opens at its default size.
settings="$(mktemp -d)"
trap 'rm -rf "$settings"' EXIT
export XDG_CONFIG_HOME="$settings"
shot() {  # shot NAME ARGS...: one app run under a fresh virtual screen, checked for its PNG
  local name="$1"; shift
  echo "screenshots.sh: $name" >&2
  rm -rf "${settings:?}"/*
  xvfb-run -a -s "-screen 0 1920x1200x24" "$app" "$@" >/dev/null
}
check() { [ -s "$1" ] || { echo "screenshots.sh: $1 was not written" >&2; exit 1; }; }

shot launch-60s.png --screenshot "$out/launch-60s.png" --after 60
check "$out/launch-60s.png"
shot inspector-rem-rsa.png --screenshot "$out/inspector" --after 60 --shots rem:rsa
check "$out/inspector-rem-rsa.png"
if [ ! -s "$root/runs/figure1/sweep.json" ]; then
  echo "screenshots.sh: sweeping the figure1 preset into runs/figure1 (minutes)" >&2
  "$cli" sweep --preset figure1 --out "$root/runs/figure1" >/dev/null
fi
shot regime-map.png --sweep-results "$root/runs/figure1/sweep.json" \
  --screenshot "$out/regime-map.png" --after 3
check "$out/regime-map.png"
shot real-series-airpassengers.png --csv "$root/resources/series/airpassengers.csv" --horizon 12 \
  --screenshot "$out/real-series-airpassengers.png" --after 60
check "$out/real-series-airpassengers.png"
shot paper-table.png --paper-table "$root/docs/data/paper_table.json" \
  --screenshot "$out/paper-table.png" --after 3
check "$out/paper-table.png"
echo "screenshots.sh: wrote launch-60s, inspector-rem-rsa, regime-map, real-series-airpassengers and paper-table (.png) in $out" >&2
