#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails when a C++ source differs from the checked-in .clang-format style (clang-format 14, as
# installed by scripts/setup.sh), or when a source, script or CMake file lacks its licence line
# (SPDX-License-Identifier: GPL-3.0-or-later, on line 1, or line 2 after a #! line).
# `scripts/check-format.sh --fix` reformats the C++ files instead (licence lines are added by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
spdx="SPDX-License-Identifier: GPL-3.0-or-later"
missing=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! head -n 2 "$f" | grep -qF "$spdx"; then missing+=("$f"); fi
done < <(git ls-files '*.cpp' '*.h' '*.py' '*.sh' '*.R' '*.cmake' 'CMakeLists.txt' \
  '**/CMakeLists.txt' '.ci/run' | sort -u)
if [ ${#missing[@]} -gt 0 ]; then
  printf 'check-format: no licence line in %s\n' "${missing[@]}" >&2
  echo "check-format: add '// $spdx' (C++) or '# $spdx' (scripts, CMake) as the first line," \
    "after any #! line" >&2
  exit 1
fi
scripts/check-layering.sh  # includes that run back up the layers fail here too
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check-format: the files above are not formatted; run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
