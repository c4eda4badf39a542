// Derives the hierarchy of a Fabric from its graph alone: switch tiers, each NIC's leaf
// and rail, blocks, pods, NVLink domains, tier statistics and the per-leaf domain ids
// behind O(1) tier lookups. Internal to topology/model; FabricBuilder::Build runs it.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_INFERENCE_H_
#define TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_INFERENCE_H_

#include <cstdint>

#include "topology/model/fabric.h"

namespace topoplace {

// Most switch tiers the hierarchy has. Clos fabrics built today have two or three (a
// 100,000-GPU three-tier fabric among them); super-spine and multi-plane designs add one or
// two. Switches farther from every host are left out with a warning.
inline constexpr int32_t kMaxSwitchTiers = 8;

class HierarchyInference {
 public:
  // Fills every derived field of `fabric` and appends warnings for what looks wrong
  // (unreachable or too deep switches, uncabled NICs, mixed rails, declared tiers that
  // disagree). Linear in the fabric's size, whatever its shape.
  // Precondition: tables and graph are complete and consistent.
  static void Run(Fabric& fabric);
};

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_INFERENCE_H_
