#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and runs the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp), each for SECONDS (default 60),
# niced. They link the real core library (rsalab_core), built with clang in build-fuzz/ with
# -DRSALAB_FUZZ=ON: core with -fsanitize=fuzzer-no-link,address,undefined, harnesses with
# -fsanitize=fuzzer,address,undefined (tests/fuzz/CMakeLists.txt).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 300 csv_reader
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 3600     stop each harness after that many executions
#   FUZZ_CXX=clang++-14 scripts/fuzz.sh        the clang to build with (default clang++)
# The committed seeds (tests/fuzz/corpus/NAME) are read, never written; new corpus entries go to
# build-fuzz/corpus/NAME and crashers to build-fuzz/artifacts/. Keep a crasher as a regression by
# copying it to tests/fuzz/regressions/NAME/ (test_config_validation replays those through the
# plain readers). Exit status: 0 when no harness found anything.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
out=build-fuzz
mkdir -p "$out/artifacts"
CXX=${FUZZ_CXX:-clang++}
if ! command -v "$CXX" > /dev/null; then
  echo "fuzz.sh: $CXX not found: install clang and libclang-rt-14-dev (libFuzzer)" >&2
  exit 2
fi
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$out/build.ninja" ]; then
  cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX" \
    "${launcher[@]}" -DRSALAB_FUZZ=ON -DRSALAB_GUI=OFF -DBUILD_TESTING=OFF > "$out/configure.log" \
    || { cat "$out/configure.log" >&2; exit 2; }
fi
names=()
for src in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$src" .cpp); name=${name#fuzz_}
  if [ $# -gt 0 ] && [[ ! " $* " =~ " $name " ]]; then continue; fi
  names+=("$name")
done
if [ ${#names[@]} -eq 0 ]; then
  echo "fuzz.sh: no harness named $*; there are: $(ls tests/fuzz/fuzz_*.cpp | sed 's|.*/fuzz_||; s|\.cpp||' | tr '\n' ' ')" >&2
  exit 2
fi
echo "== building ${names[*]} (core library + harnesses, sanitized)"
nice -n 10 ninja -C "$out" -j "${FUZZ_JOBS:-2}" "${names[@]/#/fuzz_}"
status=0
for name in "${names[@]}"; do
  mkdir -p "$out/corpus/$name"
  runs=()
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  echo "== $name: fuzzing for up to $seconds s ${FUZZ_RUNS:+or $FUZZ_RUNS runs}"
  if ! UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n 10 "$out/tests/fuzz/fuzz_$name" \
      -max_total_time="$seconds" "${runs[@]}" -timeout=120 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" \
      "$out/corpus/$name" "tests/fuzz/corpus/$name" 2>&1 | tee "$out/$name.log" | grep -E "^#[0-9]+ +(DONE|INITED)|ERROR|SUMMARY|stat::number_of_executed_units|Test unit written"; then
    :
  fi
  if grep -q "ERROR\|Test unit written\|deadly signal" "$out/$name.log"; then
    echo "== $name: FOUND a crash, see $out/$name.log and $out/artifacts/"
    status=1
  else
    echo "== $name: clean, $(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log") executions"
  fi
done
exit $status
