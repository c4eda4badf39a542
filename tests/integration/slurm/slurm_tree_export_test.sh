#!/usr/bin/env bash
# Real Slurm (Debian's 22.05: slurmctld + 8 slurmd on loopback) accepts the topology.conf
# that `topoplace export slurm-tree` writes, and uses it: with 3 of block-00's 4 nodes
# busy, a 2-node job lands inside block-01. The control run without the topology plugin
# sends the same job across the two blocks, so the check can fail.
#
# Usage: slurm_tree_export_test.sh /path/to/topoplace
# Exit 77 (skipped) without root or Slurm. Every daemon it starts is stopped on exit.
set -euo pipefail
topoplace=$1

if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root (slurmd runs as root)"; exit 77; fi
for tool in slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done

D=$(mktemp -d /tmp/topoplace-slurm.XXXXXX)
export SLURM_CONF=$D/etc/slurm.conf
daemon_pids=()
nodes=(b00-n000 b00-n001 b00-n002 b00-n003 b01-n000 b01-n001 b01-n002 b01-n003)
ctld_port=$((20000 + RANDOM % 20000))
node_port=$((ctld_port + 1))

stop_slurm() {
  if ((${#daemon_pids[@]})); then
    scancel --quiet --full --user=root 2>/dev/null || true
    for _ in $(seq 50); do
      [[ -z $(squeue -h 2>/dev/null) ]] && break
      sleep 0.2
    done
    kill "${daemon_pids[@]}" 2>/dev/null || true
    wait "${daemon_pids[@]}" 2>/dev/null || true
    daemon_pids=()
  fi
  pkill -f "slurmstepd.*$D" 2>/dev/null || true
}
cleanup() {
  stop_slurm
  rm -rf "$D"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  echo "--- slurmctld log"; tail -n 30 "$D/log/slurmctld.log" 2>/dev/null || true
  exit 1
}

# A fabric whose host names are the Slurm node names: 2 blocks x 4 nodes.
"$topoplace" fabric generate --name slurm-test --blocks-per-pod 2 --nodes-per-block 4 \
  --spines-per-pod 8 --out "$D/fabric.json" >/dev/null

write_config() {  # $1: topology plugin
  mkdir -p "$D"/{etc,log,run,state,spool}
  cat >"$SLURM_CONF" <<CONF
ClusterName=topoplace-test
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=$1
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
NodeName=b00-n[000-003],b01-n[000-003] NodeHostname=$(hostname) NodeAddr=127.0.0.1 Port=[$node_port-$((node_port + 7))] CPUs=2 RealMemory=1000
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  echo "CgroupPlugin=cgroup/v1" >"$D/etc/cgroup.conf"
}

start_slurm() {
  slurmctld -D -i >"$D/log/slurmctld.out" 2>&1 &
  daemon_pids+=($!)
  for n in "${nodes[@]}"; do
    slurmd -D -N "$n" >"$D/log/slurmd-$n.out" 2>&1 &
    daemon_pids+=($!)
  done
  for _ in $(seq 150); do
    idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [[ $idle -eq ${#nodes[@]} ]] && return 0
    sleep 0.2
  done
  fail "nodes did not become idle: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')"
}

wait_running() {  # $1: job id
  for _ in $(seq 150); do
    [[ $(squeue -h -j "$1" -o %t 2>/dev/null) == R ]] && return 0
    sleep 0.2
  done
  fail "job $1 did not start: $(squeue -h -j "$1" -o '%t %r' 2>&1)"
}

# Occupies 3 of block-00's nodes, then asks for 2 more nodes; prints their blocks.
blocks_of_two_node_job() {
  local busy two
  busy=$(sbatch --parsable --exclusive -N 3 -w 'b00-n[000-002]' -o /dev/null --wrap 'sleep 300')
  wait_running "$busy"
  two=$(sbatch --parsable --exclusive -N 2 -o /dev/null --wrap 'sleep 300')
  wait_running "$two"
  scontrol show hostnames "$(squeue -h -j "$two" -o %N)" | cut -d- -f1 | sort -u | tr '\n' ' '
}

# 1. With topoplace's topology.conf.
write_config topology/tree
"$topoplace" export slurm-tree --fabric "$D/fabric.json" --out "$D/etc/topology.conf"
start_slurm
topology=$(scontrol show topology)
grep -q "SwitchName=block-00 Level=0" <<<"$topology" || fail "block-00 not a leaf: $topology"
grep -q "SwitchName=pod-0 Level=1" <<<"$topology" || fail "pod-0 not above blocks: $topology"
with_tree=$(blocks_of_two_node_job)
stop_slurm
[[ $with_tree == "b01 " ]] || fail "with topology/tree the 2-node job spans: $with_tree"
echo "with topology/tree: the 2-node job ran in block(s) $with_tree"

# 2. Control: the same submissions without a topology cross the blocks.
rm -f "$D/etc/topology.conf"
write_config topology/none
start_slurm
without_tree=$(blocks_of_two_node_job)
stop_slurm
[[ $without_tree == "b00 b01 " ]] || fail "control run did not cross blocks: $without_tree"
echo "without topology: the 2-node job ran in block(s) $without_tree"
echo "PASS"
