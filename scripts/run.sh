#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, builds, and opens RSA Lab on its built-in seasonal task (RNN,
# Transformer and RSA selected; press Start). Without a display it says so and runs the
# command-line demo instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Builds only what it runs (the app and the CLI: 152 of the 297 build steps); the tests and the
# bench are scripts/test.sh's. Each stage says what it does; ninja counts the build's steps.
echo "run.sh: [1/3] installing what is missing (scripts/setup.sh)" >&2
"$root/scripts/setup.sh"
build="${RSALAB_BUILD_DIR:-$root/build}"
launcher=()
# ccache, where installed, makes rebuilds of unchanged files instant (not required).
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
echo "run.sh: [2/3] configuring $build" >&2
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" ${RSALAB_CMAKE_ARGS:-} >/dev/null
targets=(rsalab-cli)
if ninja -C "$build" -t query rsalab >/dev/null 2>&1; then targets=(rsalab rsalab-cli); fi
echo "run.sh: [3/3] building ${targets[*]} ($(ninja -C "$build" -n "${targets[@]}" | grep -c '^\[') steps left; [step/total] below)" >&2
cmake --build "$build" --target "${targets[@]}"
if [ -x "$build/app/gui/rsalab" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ "${QT_QPA_PLATFORM:-}" = offscreen ]; }; then
  exec "$build/app/gui/rsalab" "$@"
fi
echo "run.sh: no display (DISPLAY/WAYLAND_DISPLAY unset); running the command-line demo instead." >&2
echo "run.sh: for the app without a screen: xvfb-run -a $build/app/gui/rsalab --screenshot shot.png" >&2
exec "$build/app/cli/rsalab-cli" demo "$@"
