# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the Slurm tests (sourced after sweep_test_lib.sh).

# The test cluster must answer; otherwise fail at once, saying how to get one.
require_slurm() {
  if ! command -v sbatch >/dev/null || ! sinfo -h >/dev/null 2>&1; then
    echo "FAIL: no Slurm cluster (SLURM_CONF=${SLURM_CONF:-unset}): install munge and slurm-wlm" \
      "(scripts/setup.sh) and start one with scripts/slurm-local.sh up"
    exit 1
  fi
}

# wait_for_jobs "ID[ ID…]" SECONDS: until squeue lists no pending or running task of them.
wait_for_jobs() {
  local ids=${1// /,} limit=$2 waited=0
  while [ -n "$(squeue -h -j "$ids" -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null)" ]; do
    sleep 0.5
    waited=$((waited + 1))
    if [ "$waited" -ge $((limit * 2)) ]; then
      fail "jobs $1 still queued after $limit s"
      return 1
    fi
  done
}
