#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) with clang and
# -fsanitize=fuzzer,address,undefined, each for SECONDS (default 60), niced.
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     e.g. scripts/fuzz.sh 300 csv_reader
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 3600     stop each harness after that many executions
# Each harness names the torch-free sources it needs in a `// fuzz-sources:` line. The committed
# seeds (tests/fuzz/corpus/NAME) are read, never written; new corpus entries go to
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
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -I. -Itests/fuzz -DRSALAB_VERSION=\"fuzz\")
status=0
for src in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$src" .cpp); name=${name#fuzz_}
  if [ $# -gt 0 ] && [[ ! " $* " =~ " $name " ]]; then continue; fi
  sources=$(sed -n 's|^// fuzz-sources: ||p' "$src")
  echo "== $name: building ($sources)"
  nice -n 10 "$CXX" "${flags[@]}" "$src" $sources -o "$out/fuzz_$name"
  mkdir -p "$out/corpus/$name"
  runs=()
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  echo "== $name: fuzzing for up to $seconds s ${FUZZ_RUNS:+or $FUZZ_RUNS runs}"
  if ! UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n 10 "$out/fuzz_$name" \
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
