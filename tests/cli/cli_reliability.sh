#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# rsalab-cli under bad input, divergence, engine errors and Ctrl+C: exit codes and one-line
# messages naming the bad value; SIGINT during `train` stops within a second, writes config.json,
# metrics.csv and checkpoint.pt, and leaves no temporary file.
#   tests/cli/cli_reliability.sh path/to/rsalab-cli
set -uo pipefail
cli=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
small=(--task seasonal --length 16 --size 64 --d-model 16 --heads 4 --layers 1 --batch 8 --eval-every 10)

# expect CODE PATTERN ARGS...: runs the CLI, checks the exit code and that stderr matches PATTERN.
expect() {
  local code=$1 pattern=$2; shift 2
  "$cli" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  local message; message=$(tr '\r' '\n' < "$work/err" | grep -a "error" | tail -n 1)
  if [ "$got" != "$code" ] || ! grep -qE -- "$pattern" "$work/err"; then
    echo "FAIL: rsalab-cli $* -> exit $got (want $code), stderr: $message"
    failures=$((failures + 1))
  else
    echo "ok: exit $got: $message"
  fi
}

# Bad values: exit 1, the message names the value and its range.
expect 1 "d_model = 30 is not divisible by heads = 4" train --d-model 30 --heads 4 --out "$work/r"
expect 1 "learning_rate = 0 must be > 0" train "${small[@]}" --lr 0 --out "$work/r"
expect 1 "batch_size = 0 is out of range: 1..4096" train --batch 0 --out "$work/r"
expect 1 "task.length = 0 is out of range: 1..100000" train --length 0 --out "$work/r"
expect 1 "train_size = 0 is out of range: 1..1000000" train --size 0 --out "$work/r"
expect 1 "max_steps = 0 is out of range" train "${small[@]}" --steps 0 --out "$work/r"
expect 1 "device 'tpu' is unknown" train "${small[@]}" --device tpu --out "$work/r"
expect 1 "task 'nope' is unknown" train --task nope --out "$work/r"
printf '{"trainer": {"learning_rate": "fast"}}' > "$work/typed.json"
expect 1 "trainer.learning_rate has the wrong type \(string\)" train --config "$work/typed.json" --out "$work/r"
printf '{"model": {"d_model": 64' > "$work/truncated.json"
expect 1 "config is not valid JSON" train --config "$work/truncated.json" --out "$work/r"
python3 -c "print('['*5000 + ']'*5000)" > "$work/deep.json"
expect 1 "config nests deeper than 32 levels" train --config "$work/deep.json" --out "$work/r"
head -c 2000000 /dev/zero | tr '\0' ' ' > "$work/huge.json"
expect 1 "huge.json is 2000000 bytes; the limit is 1048576" train --config "$work/huge.json" --out "$work/r"
printf 'a,b\n1,2\n3,x\n' > "$work/bad.csv"
expect 1 "line 3" train "${small[@]}" --csv "$work/bad.csv" --out "$work/r"
head -c 4096 /dev/urandom > "$work/binary.csv"
expect 1 "binary.csv" train "${small[@]}" --csv "$work/binary.csv" --out "$work/r"

# Divergence: exit 3, the checkpoint holds the last good weights.
expect 3 "training diverged at step 7" train "${small[@]}" --steps 50 --fault-nan-at-step 7 --out "$work/div" --session "$work/div-session"
[ -f "$work/div/checkpoint.pt" ] || { echo "FAIL: no checkpoint after divergence"; failures=$((failures + 1)); }
# The last progress line gives the step the run stopped at, not the budget; the session keeps
# the run as diverged (RunState::Diverged), not failed.
last=$(tr '\r' '\n' < "$work/err" | grep -a "^train" | tail -n 1)
case "$last" in *" 7/50 "*|*" 6/50 "*) echo "ok: last progress line: $last" ;;
  *) echo "FAIL: last progress line after divergence at step 7: $last"; failures=$((failures + 1)) ;; esac
grep -q '"diverged"' "$work"/div-session*/manifest.json 2>/dev/null \
  || { echo "FAIL: the session does not keep the diverged run as diverged"; failures=$((failures + 1)); }
# Engine exceptions inside a step: exit 1 with the message.
expect 1 "error: .*injected fault at step 4" train "${small[@]}" --steps 50 --fault-throw-at-step 4 --out "$work/exc"
expect 1 "error: .*shapes cannot be multiplied" train "${small[@]}" --steps 50 --fault-throw-at-step 4 --fault-kind shape --out "$work/exc"
expect 1 "error: out of memory \(std::bad_alloc\)" train "${small[@]}" --steps 50 --fault-throw-at-step 4 --fault-kind bad_alloc --out "$work/exc"

# Ctrl+C during training: stops within a second, writes what train promised, no temporaries.
"$cli" train "${small[@]}" --steps 100000000 --out "$work/int" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$work/int/config.json" ] && grep -q "^train:" "$work/err" && break
  sleep 0.1
done
sleep 1  # training is under way
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"; code=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "SIGINT: exit $code after $ms ms: $(tail -n 1 "$work/err")"
if [ "$code" != 130 ]; then echo "FAIL: exit $code after SIGINT (want 130)"; failures=$((failures + 1)); fi
# The promise is one second. Under a sanitizer (scripts/check-sanitizers.sh sets
# RSALAB_SANITIZER) every step and the final writes run several times slower: 5 s there.
limit_ms=1000
[ -n "${RSALAB_SANITIZER:-}" ] && limit_ms=5000
if [ "$ms" -gt "$limit_ms" ]; then echo "FAIL: stopping took $ms ms (> $limit_ms ms)"; failures=$((failures + 1)); fi
for f in config.json metrics.csv checkpoint.pt; do
  [ -s "$work/int/$f" ] || { echo "FAIL: $f missing after SIGINT"; failures=$((failures + 1)); }
done
lines=$(wc -l < "$work/int/metrics.csv")
[ "$lines" -gt 2 ] || { echo "FAIL: metrics.csv has $lines lines"; failures=$((failures + 1)); }
leftovers=$(ls "$work/int" | grep -c "\.tmp" || true)
[ "$leftovers" = 0 ] || { echo "FAIL: $leftovers temporary file(s) left"; failures=$((failures + 1)); }
# The interrupted run is a valid run folder: eval restores it.
expect 0 "" eval --run "$work/int"

# Ctrl+C during a sweep: the started runs stop, their rows are written, exit 130.
"$cli" sweep --models gru,rsa --sizes 16,32 --seeds 2 --steps 100000000 --length 16 --out "$work/sweep" \
  >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 600); do
  grep -q "^sweep:" "$work/err" && break
  sleep 0.1
done
sleep 2
kill -INT "$pid"
wait "$pid"; code=$?
echo "sweep SIGINT: exit $code: $(tr '\r' '\n' < "$work/err" | tail -n 1)"
if [ "$code" != 130 ]; then echo "FAIL: sweep exit $code after SIGINT (want 130)"; failures=$((failures + 1)); fi
[ -s "$work/sweep/sweep.csv" ] || { echo "FAIL: sweep.csv missing after SIGINT"; failures=$((failures + 1)); }

echo "$failures failure(s)"
[ "$failures" = 0 ]
