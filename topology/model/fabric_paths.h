// The paths traffic between two NICs can take: Boost breadth-first searches on the fabric's
// graph (fabric_graph.h) from both ends, over the links that are up. A NIC is an end of a
// path, never a way through it, and hosts' attachment edges carry no traffic. Each
// parallel cable of a link is a path of its own, as per-flow ECMP sees it.
//
// This is the view `fabric paths` prints, and the ground truth the traffic model's tiers
// (Fabric::NicTier) and the ECMP choices of scheduler/traffic/link_loads.h are checked
// against in tests.
//
//   const FabricGraphView view = BuildFabricGraph(*fabric);
//   const NicPaths paths = ShortestNicPaths(view, *fabric, a, b);
//   paths.switch_hops;  paths.equal_cost_paths;  paths.hops[0];  // the links of each hop
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_PATHS_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_PATHS_H_

#include <vector>

#include "topology/model/fabric.h"
#include "topology/model/fabric_graph.h"

namespace topoplace {

struct NicPaths {
  // Switches on a shortest path (1 under one leaf, 3 through a spine, 5 through the core);
  // -1 when no path of links that are up joins the two NICs, 0 for a NIC and itself.
  int switch_hops = -1;
  // Shortest paths, counting each of a link's parallel cables (Link::count) as its own.
  double equal_cost_paths = 0;
  // Per hop, from `from` towards `to`, the links some shortest path takes there, in
  // ascending order: hops[0] is `from`'s cable, hops.back() `to`'s.
  std::vector<std::vector<LinkId>> hops;
};

// Preconditions: `view` is BuildFabricGraph(fabric); `from` and `to` are NICs of `fabric`.
// O(NICs + switches + links).
NicPaths ShortestNicPaths(const FabricGraphView& view, const Fabric& fabric, NicId from, NicId to);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_PATHS_H_
