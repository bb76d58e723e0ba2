#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The layering rule as a check: the build targets' folders stand in the order engine/core, engine,
# widgets, app/figures, app/cli, app/gui. A source may include headers from its own folder and
# from the folders before it, never from one after it: engine/core includes nothing else from
# engine/ (no LibTorch, no Qt), engine/ nothing from widgets/ or app/, widgets/ nothing from app/.
# Exits 1 naming each include that runs back up. Run by scripts/check-format.sh and the CTest
# `layering`; `scripts/check-layering.sh DIR` checks another checkout.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
layers=(engine/core engine widgets app/figures app/cli app/gui)
# The layer of a path (its longest folder prefix) in $layer: an index into layers, or -1.
layer_of() {
  case $1 in
    engine/core/*) layer=0 ;;
    engine/*) layer=1 ;;
    widgets/*) layer=2 ;;
    app/figures/*) layer=3 ;;
    app/cli/*) layer=4 ;;
    app/gui/*) layer=5 ;;
    *) layer=-1 ;;
  esac
}
status=0
checked=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  include=${rest#*\"}
  include=${include%%\"*}
  layer_of "$file"
  own=$layer
  layer_of "$include"
  checked=$((checked + 1))
  if [ "$own" -ge 0 ] && [ "$layer" -gt "$own" ]; then
    echo "layering: $file:$line includes $include: ${layers[$own]}/ may include only" \
      "${layers[*]:0:$((own + 1))}" >&2
    status=1
  fi
done < <(if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git grep -n '^#include "' -- 'engine/*' 'widgets/*' 'app/*'
else  # a copy without git (a source package): every source under the layers' folders
  grep -rn --include='*.h' --include='*.cpp' '^#include "' engine widgets app
fi)
[ "$status" = 0 ] && echo "layering: $checked includes in ${layers[*]}: none runs back up"
exit "$status"
