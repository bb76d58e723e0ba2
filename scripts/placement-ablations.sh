#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The placement claim's ablations (docs/FAMILY.md, "What the placement claim confounds"): each
# reruns `recurrence-placement` with a variant beside the original, the same rivals, seeds and grid,
# and keeps the joined record under docs/data/ with its block in docs/FAMILY.md:
#   rsa-regular     rsa[rem_heads=regular] (regular REM heads only), beside the preset's record;
#   retnet-learned  retnet[learnable_decay,rotation], beside the preset's record;
#   no-cos          the recover teacher without its cos term (the regular 0.8^k alone), every
#                   model and both variants;
#   power-variants  both variants on the power process, beside the claims rerun's record
#                   (docs/data/recurrence-placement-power.json: run scripts/claims-rerun.sh first).
# Usage: scripts/placement-ablations.sh [OUT_DIR]
set -euo pipefail
cli=${RSALAB_CLI:-build/app/cli/rsalab-cli}
out=${1:-runs/ablate}
mkdir -p "$out"
regular_only="$out/regular-teacher.json"
echo '{"task": {"teacher_kinds": ["regular"], "teacher_bases": [0.8], "teacher_thetas": [0.0]}}' \
  > "$regular_only"
rsa_v='rsa[rem_heads=regular]'
retnet_v='retnet[learnable_decay,rotation]'
ablation() {  # LABEL WITH_RECORD|- KEEP_MODELS SWEEP_ARGS...
  local label=$1 with=$2 keep=$3
  shift 3
  local sweep=(sweep --preset recurrence-placement --seeds 5 --epochs 8 "$@" --out "$out/$label")
  "$cli" "${sweep[@]}"
  local join=()
  [[ $with != - ]] && join=(--with "$with")
  local name=recurrence-placement-$label
  "$cli" preset-docs --preset recurrence-placement --sweep "$out/$label" --models "$keep" \
    --label "${label#power-}" "${join[@]}" --command "rsalab-cli ${sweep[*]}" \
    --json "docs/data/$name.json" --docs docs/FAMILY.md > /dev/null
}
ablation rsa-regular docs/data/recurrence-placement.json "$rsa_v" --models "$rsa_v"
ablation retnet-learned docs/data/recurrence-placement.json "$retnet_v" --models "$retnet_v"
all="rsa,alibi,fox,retnet,$rsa_v,$retnet_v"
ablation no-cos - "$all" --config "$regular_only" --models "$all"
ablation power-variants docs/data/recurrence-placement-power.json "$rsa_v,$retnet_v" \
  --teacher-process power --sizes 16,64,1024,4096 --models "$rsa_v,$retnet_v"
