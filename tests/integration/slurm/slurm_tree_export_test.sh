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

source "$(dirname "$0")/slurm_cluster.sh"

cleanup() {
  stop_slurm
  rm -rf "$D"
}
trap cleanup EXIT

# A fabric whose host names are the Slurm node names: 2 blocks x 4 nodes.
"$topoplace" fabric generate --name slurm-test --blocks-per-pod 2 --nodes-per-block 4 \
  --spines-per-pod 8 --out "$D/fabric.json" >/dev/null

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
