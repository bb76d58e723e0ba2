#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The claims rerun on the teacher processes other than rem (docs/TASKS.md, "The claims on every
# teacher process"): for each process, figure1's and recurrence-placement's models in one sweep
# (each model trained once) and the family's sweep, whose transformer and rsa runs are also
# rsa-sample-efficiency's; then their records under docs/data/ (NAME-PROCESS.json), figure1's block
# per process in docs/REGIME_MAP.md and the claims-by-process table in docs/TASKS.md. The rules
# are the presets'; only the ground changes.
#
# The default grid is cut to fit the budget (the table states the cuts and the time it took):
#   figure1 and recurrence-placement: N ∈ {16, 64, 1024, 4096} (the preset's N = 256 left out; the
#     corners their rules read stay), 5 seeds;
#   the sample-efficiency claims: N ∈ {16, 256, 4096} (three sizes for a per-seed exponent), 6
#     seeds (the fewest a sign test can decide with).
# --full runs the presets' own grids instead; the table gives the estimate of what that takes.
# Usage: scripts/claims-rerun.sh [--full] [OUT_DIR] [PROCESS ...]   (default: power nonlinear
# selective; rem is the presets' own record, judged as it is)
set -euo pipefail
cli=${RSALAB_CLI:-build/app/cli/rsalab-cli}
full=0
if [[ ${1:-} == --full ]]; then
  full=1
  shift
fi
out=${1:-runs/claims}
shift || true
processes=("$@")
[[ ${#processes[@]} -gt 0 ]] || processes=(power nonlinear selective)
# figure1's models and recurrence-placement's, once each (the records keep each preset's own).
regime_models=rnn,transformer,rsa,alibi,fox,retnet
if [[ $full == 1 ]]; then
  regime_sizes=()
  family_sizes=()
else
  regime_sizes=(--sizes "16,64,1024,4096")
  family_sizes=(--sizes "16,256,4096")
fi
for p in "${processes[@]}"; do
  regime=(sweep --preset figure1 --models "$regime_models" "${regime_sizes[@]}" --seeds 5
    --epochs 8 --teacher-process "$p" --out "$out/$p/regime")
  family=(sweep --preset family-sample-efficiency "${family_sizes[@]}" --seeds 6 --epochs 8
    --teacher-process "$p" --out "$out/$p/family")
  "$cli" "${regime[@]}"
  "$cli" "${family[@]}"
  for preset in figure1 recurrence-placement; do
    docs=()
    [[ $preset == figure1 ]] && docs=(--docs docs/REGIME_MAP.md)
    "$cli" preset-docs --preset "$preset" --sweep "$out/$p/regime" --command "rsalab-cli ${regime[*]}" \
      --json "docs/data/$preset-$p.json" "${docs[@]}" > /dev/null
  done
  for preset in rsa-sample-efficiency family-sample-efficiency; do
    "$cli" preset-docs --preset "$preset" --sweep "$out/$p/family" --command "rsalab-cli ${family[*]}" \
      --json "docs/data/$preset-$p.json" > /dev/null
  done
done
"$cli" preset-docs --claims docs/data --docs docs/TASKS.md
