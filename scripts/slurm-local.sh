#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A one-node Slurm cluster on loopback, to run and test `rsalab-cli sweep --slurm` without a real
# cluster: munged + slurmctld + slurmd (Debian's munge and slurm-wlm; scripts/setup.sh installs
# them), with their config, key, sockets, state and logs in one folder.
#
#   scripts/slurm-local.sh up   [DIR]   # start (DIR defaults to $RSALAB_SLURM_DIR or /tmp/rsalab-slurm)
#   scripts/slurm-local.sh down [DIR]   # stop the daemons this script started, remove DIR
#   scripts/slurm-local.sh env  [DIR]   # print `export SLURM_CONF=…` (eval "$(… env)")
#
# The client commands (sbatch, squeue, scancel, rsalab-cli) find this cluster through
# SLURM_CONF=DIR/slurm.conf; nothing under /etc is touched. The node has the machine's cores
# (nproc) and memory; one partition "local". The ports are the first free pair from 16817
# (or $RSALAB_SLURM_PORT). Meant for a machine where we are root (daemons run as root).
set -euo pipefail

cmd=${1:-}
dir=${2:-${RSALAB_SLURM_DIR:-/tmp/rsalab-slurm}}

die() {
  echo "slurm-local: $*" >&2
  exit 1
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Stops the daemons whose pids the files hold (this script started them): SIGTERM to all, then
# up to 5 s for them to go, then SIGKILL.
stop_pidfiles() {
  local pids=() file pid
  for file in "$@"; do
    [ -s "$file" ] && pid=$(cat "$file") && kill -0 "$pid" 2>/dev/null && pids+=("$pid")
    rm -f "$file"
  done
  [ ${#pids[@]} = 0 ] && return 0
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
}

down() {
  [ -d "$dir" ] || return 0
  stop_pidfiles "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"
  rm -rf "$dir"
}

up() {
  for tool in munged slurmctld slurmd sbatch squeue sinfo; do
    command -v "$tool" >/dev/null ||
      die "$tool not found: install Debian's munge and slurm-wlm (scripts/setup.sh does)"
  done
  [ "$(id -u)" = 0 ] || die "run as root (the daemons run as root here)"
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    echo "slurm-local: already up in $dir"
    echo "export SLURM_CONF=$dir/slurm.conf"
    return 0
  fi
  down
  mkdir -p "$dir"/{state,spool,logs}
  chmod 0700 "$dir"
  dir=$(cd "$dir" && pwd)

  # munge: a fresh key, the socket in DIR (slurm.conf's AuthInfo points the plugins at it).
  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge.key"
  munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/logs/munged.log" \
    --seed-file="$dir/munged.seed" 2>>"$dir/logs/munged.log" ||
    die "munged did not start: $(tail -n 3 "$dir/logs/munged.log")"

  local port=${RSALAB_SLURM_PORT:-16817}
  while ! port_free "$port" || ! port_free $((port + 1)); do port=$((port + 2)); done
  local host cpus memory
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  cat >"$dir/slurm.conf" <<EOF
# One-node Slurm on loopback, written by scripts/slurm-local.sh
ClusterName=rsalab-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/logs/slurmctld.log
SlurmdLogFile=$dir/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
LaunchParameters=use_interactive_step
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -i || die "slurmctld did not start: $(tail -n 5 "$dir/logs/slurmctld.log" 2>/dev/null)"
  slurmd || die "slurmd did not start: $(tail -n 5 "$dir/logs/slurmd.log" 2>/dev/null)"
  # Ready when the node takes jobs (idle).
  local state=""
  for _ in $(seq 150); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1 || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  if [ "$state" != idle ]; then
    echo "slurm-local: the node is '${state:-unreachable}' after 30 s; logs:" >&2
    tail -n 5 "$dir/logs/slurmctld.log" "$dir/logs/slurmd.log" >&2 || true
    down
    exit 1
  fi
  echo "slurm-local: up in $dir (node $host, $cpus CPUs, partition local, port $port)"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

case "$cmd" in
  up) up ;;
  down)
    down
    echo "slurm-local: down"
    ;;
  env) echo "export SLURM_CONF=$dir/slurm.conf" ;;
  *) die "usage: $0 up|down|env [DIR]" ;;
esac
