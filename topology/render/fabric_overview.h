// Draws a fabric of any size as one readable SVG, aggregated: a block per tile (hosts,
// GPUs, NVLink racks, rails and leaves, uplink bandwidth and oversubscription, cables
// declared down), or a pod per tile when there are more blocks than fit a screen, under a
// line per switch tier with its oversubscription. One can drill into a pod (its blocks) or
// a block (its leaves and every host, grouped by NVLink rack). Written directly, without
// Graphviz, so the picture's size is bounded by construction: about 2,000 px wide at most.
//
//   TP_ASSIGN_OR_RETURN(std::string svg, FabricOverviewSvg(*fabric, {}));            // all
//   TP_ASSIGN_OR_RETURN(std::string pod, FabricOverviewSvg(*fabric, {.pod = 3}));     // drill
//   TP_ASSIGN_OR_RETURN(std::string blk, FabricOverviewSvg(*fabric, {.block = 12}));
//
// Names from the fabric are escaped. Thread-safe (no state).
#ifndef TOPOPLACE_TOPOLOGY_RENDER_FABRIC_OVERVIEW_H_
#define TOPOPLACE_TOPOLOGY_RENDER_FABRIC_OVERVIEW_H_

#include <string>

#include "absl/status/statusor.h"
#include "topology/model/fabric.h"

namespace topoplace::render {

// More blocks than this and the whole-fabric picture shows pods instead.
inline constexpr int kMaxBlockTiles = 64;

struct OverviewOptions {
  int pod = -1;    // >= 0: the blocks of this pod
  int block = -1;  // >= 0: this block's leaves and hosts (takes precedence over pod)
};

// The SVG document. InvalidArgument naming the valid range for a pod or block the fabric
// does not have.
absl::StatusOr<std::string> FabricOverviewSvg(const Fabric& fabric,
                                              const OverviewOptions& options = {});

}  // namespace topoplace::render

#endif  // TOPOPLACE_TOPOLOGY_RENDER_FABRIC_OVERVIEW_H_
