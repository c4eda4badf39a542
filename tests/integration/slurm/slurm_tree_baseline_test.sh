#!/usr/bin/env bash
# The slurm-tree baseline picks the nodes real Slurm picks. Debian's Slurm 22.05
# (slurmctld + 16 slurmd on loopback, select/cons_tres, topology/tree from our
# `export slurm-tree`) on a 2-level tree (one pod of 4 blocks x 4 nodes) and a 3-level tree
# (2 pods x 2 blocks x 4 nodes under a core): for each occupancy, made with real sleeping
# jobs pinned to nodes, exclusive jobs of several sizes are submitted one at a time and
# the nodes Slurm gives each are compared with `topoplace place --policy slurm-tree` on
# the same fabric and occupancy. Ties are among the cases (blocks with equal free nodes),
# and jobs that span unequal pods, where the documented algorithm and Slurm's code part.
#
# Usage: slurm_tree_baseline_test.sh /path/to/topoplace
# Exit 77 (skipped) without root or Slurm. Every daemon it starts is stopped on exit.
set -euo pipefail
topoplace=$1
export SLURM_NODE_SPEC="b00-n[000-003],b01-n[000-003],b02-n[000-003],b03-n[000-003]"
export SLURM_NODE_NAMES=$(for b in 00 01 02 03; do for n in 000 001 002 003; do
  printf 'b%s-n%s ' "$b" "$n"; done; done)
source "$(dirname "$0")/slurm_cluster.sh"
cleanup() {
  stop_slurm
  rm -rf "$D"
}
trap cleanup EXIT

wait_idle() {
  for _ in $(seq 150); do
    [[ -z $(squeue -h 2>/dev/null) ]] &&
      [[ $(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l) -eq ${#nodes[@]} ]] && return 0
    sleep 0.2
  done
  fail "nodes did not return to idle"
}

cases=0
mismatches=()
# run_case FABRIC "BUSY NODES" SIZE: occupy BUSY with one sleeping job, submit SIZE nodes.
run_case() {
  local fabric=$1 busy=$2 size=$3 hold slurm_nodes ours
  : >"$D/occupied"
  if [[ -n $busy ]]; then
    local list count
    list=$(tr ' ' ',' <<<"$busy")
    count=$(wc -w <<<"$busy")
    hold=$(sbatch --parsable --exclusive -N "$count" -w "$list" -o /dev/null --wrap 'exec sleep 600')
    wait_running "$hold"
    tr ' ' '\n' <<<"$busy" >"$D/occupied"
  fi
  local job
  job=$(sbatch --parsable --exclusive -N "$size" -o /dev/null --wrap 'exec sleep 600')
  wait_running "$job"
  slurm_nodes=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)" | sort | tr '\n' ' ')
  ours=$("$topoplace" place --fabric "$fabric" --policy slurm-tree --occupied "$D/occupied" \
           --job "tp=8,pp=1,dp=$size" --json |
         python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["hosts"])))')
  cases=$((cases + 1))
  if [[ "${slurm_nodes% }" != "$ours" ]]; then
    mismatches+=("$(basename "$fabric") busy=[$busy] size=$size: slurm=[${slurm_nodes% }] ours=[$ours]")
  fi
  scancel --quiet --full --user=root
  wait_idle
}

run_tree() {  # FABRIC
  local f=$1
  # Speed only, not placement: batch jobs start when submitted (batch_sched_delay, 3 s by
  # default), and each job is one process (`exec sleep`) that ends as soon as it is
  # cancelled (with a child left, proctrack/pgid polls it for 1 + 2 s): ~2 s a case, not ~7.
  SLURM_EXTRA_CONF="SchedulerParameters=batch_sched_delay=0" write_config topology/tree
  "$topoplace" export slurm-tree --fabric "$f" --out "$D/etc/topology.conf"
  start_slurm
  for size in 1 3 4 5 8 12; do run_case "$f" "" "$size"; done
  for size in 1 2 4 6; do run_case "$f" "b00-n000 b00-n001 b00-n002" "$size"; done
  for size in 2 3 5 7 9; do
    run_case "$f" "b00-n000 b01-n000 b01-n001 b02-n003" "$size"
  done
  for size in 3 4 6 8; do run_case "$f" "b01-n000 b01-n001 b01-n002 b01-n003 b03-n000" "$size"; done
  # Ties: blocks 0 and 2 both have 3 free nodes, blocks 1 and 3 all 4.
  for size in 3 6; do run_case "$f" "b00-n003 b02-n003" "$size"; done
  if [[ $f == *three-level* ]]; then
    # Jobs larger than any pod's free nodes, pods unequal: where Slurm's leaf-by-leaf
    # choice (distance, then the parents' fit) differs from the documented "largest leaves,
    # last best fit" (free per block: 4 1 | 3 3, then 2 4 | 4 1).
    for size in 5 7 8 9; do run_case "$f" "b01-n000 b01-n001 b01-n002 b02-n003 b03-n003" "$size"; done
    for size in 5 6 7 9; do run_case "$f" "b00-n000 b00-n001 b03-n000 b03-n001 b03-n002" "$size"; done
  fi
  stop_slurm
}

"$topoplace" fabric generate --name two-level --blocks-per-pod 4 --nodes-per-block 4 \
  --spines-per-pod 8 --out "$D/two-level.json" >/dev/null
"$topoplace" fabric generate --name three-level --tiers 3 --pods 2 --blocks-per-pod 2 \
  --nodes-per-block 4 --cores 2 --out "$D/three-level.json" >/dev/null
run_tree "$D/two-level.json"
run_tree "$D/three-level.json"

if ((${#mismatches[@]})); then
  printf 'MISMATCH %s\n' "${mismatches[@]}"
  fail "${#mismatches[@]} of $cases cases differ from real Slurm"
fi
echo "PASS: slurm-tree picked Slurm's nodes in all $cases cases (2- and 3-level trees)"
