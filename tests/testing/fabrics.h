// Small generated fabrics for tests: a few blocks of a few hosts, cheap enough to build
// in every test case and small enough to check by hand.
#ifndef TOPOPLACE_TESTS_TESTING_FABRICS_H_
#define TOPOPLACE_TESTS_TESTING_FABRICS_H_

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "topology/generate/reference_fabrics.h"

namespace topoplace::testing {

// The reference fabric `name` (GeneratePreset), built once per test binary and kept for
// its life. A preset that does not build ends the binary with the reason (every reference
// fabric builds; a test would only fail confusingly later).
inline const FabricPtr& Preset(const std::string& name) {
  static std::mutex mu;
  static auto* const built = new std::map<std::string, FabricPtr>();
  const std::lock_guard<std::mutex> lock(mu);
  auto it = built->find(name);
  if (it == built->end()) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(name);
    if (!f.ok()) {
      std::fprintf(stderr, "preset %s: %s\n", name.c_str(), f.status().ToString().c_str());
      std::abort();
    }
    it = built->emplace(name, *std::move(f)).first;
  }
  return it->second;
}

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
