#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sanitizer builds (gcc), each in its own build folder, niced, single-threaded math:
#   1. build-asan: -fsanitize=address,undefined, then the whole ctest suite.
#   2. build-tsan: -fsanitize=thread, then the worker/GUI tests (threads are where TSan helps).
#   scripts/check-sanitizers.sh [asan|tsan]... [-- CTEST_ARGS]   (default: both)
# Suppressions, each with its reason, are in tests/sanitizers/*.supp. LibTorch itself is not
# instrumented (a prebuilt library), so reports from inside it are about our calls or its
# internals; the .supp files name the internals we accept. Tests run single-threaded
# (OMP_NUM_THREADS=1), so libgomp's own barriers stay out of TSan's view.
# Measured 2026-11-23 on 2 cores (with other work running): ASan+UBSan build + 37 tests 33 min
# (tests 579 s), TSan build + 4 tests 16 min (tests 175 s). Results then: ASan/UBSan/LSan no
# report in any test; TSan clean with the suppressions in tsan.supp.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kinds=()
ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; ctest_args=("$@"); break ;;
    *) kinds+=("$1"); shift ;;
  esac
done
[ ${#kinds[@]} -eq 0 ] && kinds=(asan tsan)
supp="$root/tests/sanitizers"
export OMP_NUM_THREADS=1 RSALAB_THREADS=1 QT_QPA_PLATFORM=offscreen
# Tests that check a wall-clock promise (Ctrl+C stops within 1 s) allow for the sanitizers'
# slow-down when this is set (tests/cli/cli_reliability.sh).
export RSALAB_SANITIZER=1
status=0
for kind in "${kinds[@]}"; do
  build="$root/build-$kind"
  case "$kind" in
    asan)
      flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
      tests=()
      targets=()   # everything ctest runs (the bench is not needed: it is not a test)
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_odr_violation=0:suppressions=$supp/asan.supp"
      export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
      ;;
    tsan)
      flags="-fsanitize=thread -fno-omit-frame-pointer"
      tests=(-R "test_training_worker|test_main_window|test_sweep|test_trainer")
      targets=(test_training_worker test_main_window test_runner_engine)
      export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
      ;;
    *) echo "unknown sanitizer '$kind': use asan or tsan" >&2; exit 2 ;;
  esac
  echo "== $kind: configuring $build"
  # -O1 -g1 (line tables only), as the sanitizers' docs advise: full debug info of LibTorch's
  # templates made -O2 -g compiles take 1.5-3 minutes per translation unit here.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_FLAGS="$flags -O1 -g1" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
  echo "== $kind: building (niced)"
  if [ ${#targets[@]} -eq 0 ]; then
    # every executable ctest names: the tests plus rsalab-cli
    mapfile -t targets < <(cmake --build "$build" --target help | sed -n 's/^\(test_[a-z_]*\|rsalab-cli\): .*/\1/p' | grep -v autogen | sort -u)
  fi
  nice -n 10 cmake --build "$build" --target "${targets[@]}"
  echo "== $kind: ctest ${tests[*]} ${ctest_args[*]}"
  if ! (cd "$build" && nice -n 10 ctest --output-on-failure --timeout 1800 "${tests[@]}" "${ctest_args[@]}"); then
    status=1
  fi
done
exit $status
