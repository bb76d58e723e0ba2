#!/usr/bin/env bash
# Installs what is missing, builds, and opens RSA Lab on its built-in seasonal task (RNN,
# Transformer and RSA selected; press Start). Without a display it says so and runs the
# command-line demo instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${RSALAB_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${RSALAB_CMAKE_ARGS:-}
cmake --build "$build"
if [ -x "$build/app/rsalab" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ "${QT_QPA_PLATFORM:-}" = offscreen ]; }; then
  exec "$build/app/rsalab" "$@"
fi
echo "run.sh: no display (DISPLAY/WAYLAND_DISPLAY unset); running the command-line demo instead." >&2
echo "run.sh: for the app without a screen: xvfb-run -a $build/app/rsalab --screenshot shot.png" >&2
exec "$build/app/rsalab-cli" demo "$@"
