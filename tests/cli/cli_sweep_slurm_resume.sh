#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A Slurm sweep that loses cells: one array task is cancelled while it trains (SIGTERM: it stops
# without writing a result) and one while it waits. sweep-status reports them (failed / missing),
# `sweep --resume DIR --slurm` resubmits exactly those two as a new array, and the merge is then
# complete and equal to the local sweep. Prints the status transcripts.
#   tests/cli/cli_sweep_slurm_resume.sh path/to/rsalab-cli
set -uo pipefail
cli=$1
work=$(mktemp -d)
jobs=""
trap '[ -n "$jobs" ] && scancel $jobs 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "$0")/sweep_test_lib.sh"
source "$(dirname "$0")/slurm_test_lib.sh"
require_slurm
# Six cells of ~1 s of training each, two at a time (--max-parallel 2): time to cancel one
# mid-run while the last one waits. (The fused GRU made 400 steps ~0.05 s, and a cell finished
# before it could be cancelled: 12000 steps are ~0.9 s again, measured 2026-11-24.)
sweep=(--models gru --sizes 16,32,64 --seeds 2 --steps 12000 --eval-every 3000 --length 16
  --d-model 8 --layers 1)
dir=$work/sweep

"$cli" sweep "${sweep[@]}" --slurm --max-parallel 2 --out "$dir" >"$work/out" 2>"$work/err" ||
  fail "--slurm: $(tail -n 1 "$work/err")"
job=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$work/out")
jobs="$job"
[ -n "$job" ] || fail "no job id in: $(cat "$work/out")"

# Cancel the task that trains (a cell without a result yet), and the last one while it waits.
cancelled=""
for _ in $(seq 600); do
  running=$(squeue -h -r -j "$job" -t RUNNING -o %K 2>/dev/null | head -n 1)
  if [ -n "$running" ] && [ "$running" != 5 ] && [ ! -e "$dir/cells/$running.json" ] &&
    [ -e "$dir/cells/$running.started" ]; then
    scancel "${job}_$running" "${job}_5"
    cancelled=$running
    break
  fi
  sleep 0.1
done
[ -n "$cancelled" ] && ok "cancelled task $cancelled while it trained, and task 5 while it waited" ||
  fail "no running task to cancel"
wait_for_jobs "$job" 120
if [ -e "$dir/cells/$cancelled.json" ]; then
  fail "cell $cancelled wrote a result although cancelled (it finished first?)"
fi
echo "--- sweep-status after the cancel"
"$cli" sweep-status "$dir" 2>/dev/null | tee "$work/status"
grep -qE "^  done +4$" "$work/status" && ok "4 done" || fail "not 4 done"
lost=$(awk '$1 == "failed" || $1 == "missing" { n += $2 } END { print n + 0 }' "$work/status")
[ "$lost" = 2 ] && ok "2 cells failed or missing" || fail "$lost cells failed or missing (want 2)"
grep -qE "^  failed +1 +cells $cancelled$" "$work/status" &&
  ok "the cancelled running cell is failed" || fail "cell $cancelled not reported failed"

echo "--- sweep --resume $dir --slurm"
"$cli" sweep --resume "$dir" --slurm >"$work/out" 2>"$work/err" ||
  fail "--resume: $(tail -n 1 "$work/err")"
cat "$work/out"
resumed=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$work/out")
jobs="$job $resumed"
want="$(printf '%s\n' "$cancelled" 5 | sort -n | paste -sd,)"
grep -qE "^submitted job $resumed: 2 cell\(s\) $want \(resumed\)$" "$work/out" &&
  ok "resubmitted exactly cells $want" || fail "resubmission: $(cat "$work/out")"
wait_for_jobs "$resumed" 120
echo "--- sweep-status after the resume"
"$cli" sweep-status "$dir" 2>/dev/null | tee "$work/status"
grep -qE "^  done +6$" "$work/status" && ok "6 done" || fail "not 6 done after --resume"
"$cli" sweep-merge "$dir" >/dev/null 2>"$work/err" && ok "merge complete" ||
  fail "merge: $(tail -n 1 "$work/err")"
"$cli" sweep "${sweep[@]}" --threads 1 --out "$work/local" >/dev/null 2>&1
same_rows "$work/local/sweep.csv" "$dir/sweep.csv" "resumed Slurm sweep vs the local sweep"

echo "$failures failure(s)"
[ "$failures" = 0 ]
