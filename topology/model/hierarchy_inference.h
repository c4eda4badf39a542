// Derives the hierarchy of a Fabric from its graph alone: switch tiers, each NIC's leaf
// and rail, blocks, pods, NVLink domains, tier statistics and the per-leaf domain ids
// behind O(1) tier lookups, in eight phases (hierarchy_phases.h). Internal to
// topology/model; FabricBuilder::Build runs it.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_INFERENCE_H_
#define TOPOPLACE_TOPOLOGY_MODEL_HIERARCHY_INFERENCE_H_

#include <cstdint>

#include "topology/model/fabric.h"
#include "topology/model/hierarchy_phases.h"

namespace topoplace {

using hierarchy::kMaxSwitchTiers;

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
