// Draws a Fabric as a Graphviz graph: switches by tier (leaves at the bottom, above the
// hosts), hosts boxed by block, host-leaf cables coloured by rail, down links dashed red,
// and optionally a set of highlighted hosts (e.g. the hosts of a placement plan).
//
//   std::string dot = FabricToDot(*fabric, {.highlight = {"n001", "n002"}});
//   TP_RETURN_IF_ERROR(RenderDotToSvg(dot, "fabric.svg"));
#ifndef TOPOPLACE_TOPOLOGY_RENDER_FABRIC_DOT_H_
#define TOPOPLACE_TOPOLOGY_RENDER_FABRIC_DOT_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "topology/model/fabric.h"

namespace topoplace::render {

struct DotOptions {
  absl::flat_hash_set<std::string> highlight = {};  // host names drawn filled
};

// Returns the fabric in Graphviz `dot` syntax. Hosts are single nodes (their NICs are
// the rail-coloured edges), so the drawing stays readable for a few hundred hosts.
std::string FabricToDot(const Fabric& fabric, const DotOptions& options = {});

// Runs Graphviz `dot -Tsvg` on `dot` and writes `out_path`. FailedPrecondition if `dot`
// is not installed, Internal if it fails.
absl::Status RenderDotToSvg(const std::string& dot, const std::string& out_path);

}  // namespace topoplace::render

#endif  // TOPOPLACE_TOPOLOGY_RENDER_FABRIC_DOT_H_
