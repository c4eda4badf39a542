// Small generated fabrics for tests: a few blocks of a few hosts, cheap enough to build
// in every test case and small enough to check by hand.
#ifndef TOPOPLACE_TESTS_TESTING_FABRICS_H_
#define TOPOPLACE_TESTS_TESTING_FABRICS_H_

#include "topology/generate/reference_fabrics.h"

namespace topoplace::testing {

// A 2-tier rail-optimised Clos of `blocks` x `nodes` hosts with `gpus` GPUs and `rails`
// NICs each, and `rails` spines shared by every leaf (1 cable per leaf-spine pair).
inline ClosParams TinyClos(int blocks, int nodes, int gpus = 2, int rails = 2) {
  ClosParams p;
  p.name = "tiny";
  p.blocks_per_pod = blocks;
  p.nodes_per_block = nodes;
  p.gpus_per_node = gpus;
  p.rails = rails;
  p.spines_per_pod = rails;
  return p;
}

// TinyClos over `pods` pods joined by `cores` core switches (3 tiers).
inline ClosParams TinyClos3(int pods, int blocks_per_pod, int nodes, int cores = 2) {
  ClosParams p = TinyClos(blocks_per_pod, nodes);
  p.tiers = 3;
  p.pods = pods;
  p.cores = cores;
  return p;
}

// Two blocks of 8 hosts with 8 GPUs and 8 rails each, 2 spines: the shape the preemption
// and defragmentation tests clear blocks of.
inline ClosParams TwoBlocksOfEight() {
  ClosParams p;
  p.name = "two-blocks";
  p.blocks_per_pod = 2;
  p.nodes_per_block = 8;
  p.spines_per_pod = 2;
  return p;
}

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_TESTING_FABRICS_H_
