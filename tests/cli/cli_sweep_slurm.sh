#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A 12-cell sweep through Slurm (the one-node cluster of scripts/slurm-local.sh, found through
# $SLURM_CONF) equals the local sweep row for row; prints both wall times.
#   tests/cli/cli_sweep_slurm.sh path/to/rsalab-cli
set -uo pipefail
cli=$1
work=$(mktemp -d)
jobs=""
trap '[ -n "$jobs" ] && scancel $jobs 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "$0")/sweep_test_lib.sh"
source "$(dirname "$0")/slurm_test_lib.sh"
require_slurm
sweep=(--models gru,rsa --sizes 16,32,64 --seeds 2 --steps 20 --eval-every 10 --length 16
  --d-model 8 --layers 1)

start=$(date +%s.%N)
"$cli" sweep "${sweep[@]}" --threads 1 --out "$work/local" >/dev/null 2>"$work/err" ||
  fail "local sweep: $(tail -n 1 "$work/err")"
local_wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

start=$(date +%s.%N)
"$cli" sweep "${sweep[@]}" --slurm --cpus-per-task 1 --time 00:10:00 --out "$work/slurm" \
  >"$work/out" 2>"$work/err" || fail "--slurm: $(tail -n 1 "$work/err")"
cat "$work/out"
job=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$work/out")
jobs="$job"
[ -n "$job" ] && ok "submitted job $job" || fail "no job id in: $(cat "$work/out")"
wait_for_jobs "$job" 240
slurm_wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
"$cli" sweep-status "$work/slurm" 2>/dev/null | tee "$work/status"
grep -qE "^  done +12$" "$work/status" && ok "sweep-status: 12 done" || fail "not all 12 done"
"$cli" sweep-merge "$work/slurm" >/dev/null 2>"$work/err" || fail "merge: $(tail -n 1 "$work/err")"
same_rows "$work/local/sweep.csv" "$work/slurm/sweep.csv" "12 Slurm array tasks vs the local sweep"
hosts=$(grep -o '"slurm_job":"[0-9_]*"' "$work/slurm/cells/"*.json | wc -l)
[ "$hosts" = 12 ] && ok "every cell ran as an array task" || fail "$hosts of 12 cells name a Slurm job"
printf 'wall time, 12 cells: local %.1f s, Slurm %.1f s (submit to last cell)\n' "$local_wall" \
  "$slurm_wall"

echo "$failures failure(s)"
[ "$failures" = 0 ]
