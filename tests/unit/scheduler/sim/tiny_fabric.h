// The fabric of the hand-computed tests: 2 blocks x 4 hosts x 8 GPUs, 8 rails, 400G NICs,
// one spine, leaf oversubscription 4:1 (4 x 400G down, 1 x 400G up per leaf).
// Per rank: leaf 50e9 B/s, spine 50e9 / 4 = 12.5e9 B/s.
#ifndef TOPOPLACE_TESTS_UNIT_SCHEDULER_SIM_TINY_FABRIC_H_
#define TOPOPLACE_TESTS_UNIT_SCHEDULER_SIM_TINY_FABRIC_H_

#include "scheduler/steptime/comm_model.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched::sim {

// The step-time constants of the hand computations: 1 s of compute per iteration for the
// tests' jobs (params=1e9, 1000 tokens per replica: 7.5e11 FLOPs per GPU at tp=8), every
// link at its line rate (no NCCL efficiency) and every second of communication counted
// (no DP overlap).
inline CommModelOptions HandComputedComm() {
  CommModelOptions o;
  o.gpu_flops = 7.5e11;
  o.nvlink_gbps = 3600;
  o.nvlink_efficiency = 1;
  o.nic_efficiency = 1;
  o.dp_overlap = 0;
  return o;
}

// `blocks` x `nodes` hosts of 8 GPUs and 8 rails (ClosParams' defaults) under one spine
// per pod.
inline ClosParams OneSpine(const char* name, int blocks, int nodes) {
  ClosParams p;
  p.name = name;
  p.blocks_per_pod = blocks;
  p.nodes_per_block = nodes;
  p.spines_per_pod = 1;
  return p;
}

inline absl::StatusOr<FabricPtr> TinyOversubscribedFabric() {
  ClosParams p = OneSpine("tiny-2x4", 2, 4);
  p.leaf_uplink_gbps = 400;
  p.leaf_oversubscription = 4;
  return GenerateClos(p);
}

// The shared-link test's fabric: 3 blocks x 2 hosts x 8 GPUs, 8 rails of 400G NICs, one
// spine, each rail leaf with one 400G uplink (2:1).
inline absl::StatusOr<FabricPtr> TinySharedUplinkFabric() {
  ClosParams p = OneSpine("shared-3x2", 3, 2);
  p.leaf_uplink_gbps = 400;
  p.leaf_oversubscription = 2;
  return GenerateClos(p);
}

// The calibration test's fabric: two pods of one 8-GPU host each (8 rails of 400G NICs),
// one spine per pod with one 400G uplink per rail leaf, and 800 Gb/s from each spine to
// the one core switch (4:1).
inline absl::StatusOr<FabricPtr> TinyTwoPodFabric() {
  ClosParams p = OneSpine("two-pods", 1, 1);
  p.tiers = 3;
  p.pods = 2;
  p.cores = 1;
  p.spine_oversubscription = 4;
  return GenerateClos(p);
}

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_TESTS_UNIT_SCHEDULER_SIM_TINY_FABRIC_H_
