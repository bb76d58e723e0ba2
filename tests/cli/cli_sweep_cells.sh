#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Planned sweeps without Slurm: `sweep --plan` + `sweep-cell` one by one + `sweep-merge` gives the
# local sweep's rows exactly (training is deterministic per config and seed); a finished cell is
# skipped; a cell SIGKILLed while writing its result leaves no result (only its temporary, which
# the next write removes); an edited or replaced plan is refused with a clear message; `--resume`
# runs only the cells without a result; `--slurm` without Slurm says so, `--dry-run` writes the
# script anyway.
#   tests/cli/cli_sweep_cells.sh path/to/rsalab-cli
set -uo pipefail
cli=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/sweep_test_lib.sh"
sweep=(--models gru,rsa --sizes 16,32 --steps 20 --eval-every 10 --length 16 --d-model 8 --layers 1)

# The local sweep: plan + cells + merge in one process.
"$cli" sweep "${sweep[@]}" --seeds 2 --threads 1 --out "$work/local" >/dev/null 2>"$work/err" ||
  fail "local sweep: $(tail -n 1 "$work/err")"
[ "$(ls "$work/local/cells" | grep -c '\.json$')" = 8 ] && ok "local sweep wrote 8 cell files" ||
  fail "local sweep: not 8 cell files"

# The same plan, cells one process each (in reverse order), merged.
"$cli" sweep "${sweep[@]}" --seeds 2 --plan "$work/plan" >"$work/out" 2>&1 ||
  fail "--plan: $(cat "$work/out")"
grep -q "8 runs" "$work/out" && [ -s "$work/plan/plan.json" ] &&
  [ -z "$(ls "$work/plan/cells")" ] && ok "--plan wrote plan.json and ran nothing" ||
  fail "--plan: $(cat "$work/out")"
# Cells as separate processes, two at a time, in reverse order.
for i in $(seq 7 -1 0); do
  "$cli" sweep-cell "$work/plan" --index "$i" --threads 1 >/dev/null 2>"$work/err-$i" &
  if [ $((i % 2)) = 0 ]; then wait; fi
done
wait
for i in $(seq 0 7); do
  [ -s "$work/plan/cells/$i.json" ] || fail "sweep-cell $i: $(tail -n 1 "$work/err-$i")"
done
sum=$(cksum <"$work/plan/cells/3.json")
"$cli" sweep-cell "$work/plan" --index 3 >"$work/out" 2>/dev/null
[ "$(cksum <"$work/plan/cells/3.json")" = "$sum" ] && grep -q "skipped" "$work/out" &&
  ok "a cell with a result is skipped" || fail "cell 3 ran again: $(cat "$work/out")"
"$cli" sweep-merge "$work/plan" >/dev/null 2>"$work/err" || fail "merge: $(tail -n 1 "$work/err")"
same_rows "$work/local/sweep.csv" "$work/plan/sweep.csv" "cells run one by one vs the local sweep"

# SIGKILL while writing cell 5's result: no cells/5.json, never half of one.
cp -r "$work/plan" "$work/killed"
rm "$work/killed/cells/5.json" "$work/killed/sweep.csv"
("$cli" sweep-cell "$work/killed" --index 5 --threads 1 --fault-kill-while-writing >/dev/null 2>&1)
code=$?
if [ "$code" = 137 ] && [ ! -e "$work/killed/cells/5.json" ] &&
  ls "$work/killed/cells/" | grep -q '^5\.json\.tmp'; then
  ok "killed while writing (exit 137): no cells/5.json, only its temporary"
else
  fail "kill while writing: exit $code, cells: $(ls "$work/killed/cells" | tr '\n' ' ')"
fi
"$cli" sweep-status "$work/killed" >"$work/out" 2>/dev/null
grep -qE "failed +1 +cells 5$" "$work/out" && ok "sweep-status: cell 5 failed" ||
  fail "sweep-status after the kill: $(cat "$work/out")"
expect_fail "1 of 8 cells have no result yet \(5\)" sweep-merge "$work/killed"
"$cli" sweep --resume "$work/killed" --threads 1 >/dev/null 2>"$work/err" ||
  fail "--resume: $(tail -n 1 "$work/err")"
grep -q "7 already have a result" "$work/err" && ok "--resume ran only cell 5" ||
  fail "--resume: $(head -n 3 "$work/err")"
ls "$work/killed/cells/" | grep -q '\.tmp' && fail "a temporary is left after the rerun"
same_rows "$work/local/sweep.csv" "$work/killed/sweep.csv" "resumed after a kill vs the local sweep"

# A plan edited after its cells ran, or replaced by another plan: refused, saying why.
cp -r "$work/plan" "$work/edited"
sed -i 's/"max_steps": 20/"max_steps": 30/' "$work/edited/plan.json"
expect_fail "plan.json: the plan was edited after it was written" sweep-merge "$work/edited"
expect_fail "the plan was edited" sweep-cell "$work/edited" --index 0
expect_fail "already holds another sweep's plan" sweep "${sweep[@]}" --seeds 1 --plan "$work/plan"
"$cli" sweep "${sweep[@]}" --seeds 1 --plan "$work/other" >/dev/null 2>&1
cp -r "$work/plan" "$work/replaced"
cp "$work/other/plan.json" "$work/replaced/plan.json"
expect_fail "cells/0.json was computed for another plan" sweep-merge "$work/replaced"
expect_fail "computed for another plan" sweep-cell "$work/replaced" --index 0

# Bad input and no Slurm.
expect_fail "--index 8 is outside the plan's 8 cells" sweep-cell "$work/plan" --index 8
expect_fail "no plan in" sweep-status "$work/nothing"
expect_fail "need --slurm" sweep "${sweep[@]}" --partition gpu --out "$work/x"
expect_fail "--models cannot change it" sweep --resume "$work/plan" --models gru
# Without Slurm: the CLI alone runs with a PATH that has no sbatch.
mkdir -p "$work/no-slurm-bin"
printf '#!/bin/sh\nPATH=%s exec %s "$@"\n' "$work/no-slurm-bin" "$(realpath "$cli")" >"$work/cli-no-slurm"
chmod +x "$work/cli-no-slurm"
real_cli=$cli
cli=$work/cli-no-slurm
expect_fail "sbatch is not on PATH" sweep "${sweep[@]}" --slurm --out "$work/noslurm"
"$cli" sweep "${sweep[@]}" --seeds 2 --slurm --dry-run --max-parallel 3 --out "$work/dry" \
  >"$work/out" 2>&1
cli=$real_cli
grep -q "^#SBATCH --array=0-7%3$" "$work/dry/sweep.sbatch" 2>/dev/null &&
  grep -q "sweep-cell '$work/dry'" "$work/dry/sweep.sbatch" && ok "--dry-run wrote the job array" ||
  fail "--dry-run: $(cat "$work/out")"

echo "$failures failure(s)"
[ "$failures" = 0 ]
