// The fabric summary that `topoplace fabric show` and `fabric import` print: counts,
// switches and oversubscription per tier, rails, blocks, pods, and warnings.
//
// JSON keys are a stable contract (documented in docs/guides/cli.md): name, version, hosts, gpus,
// nics, links, switches, tiers[{tier, name, switches, down_gbps, up_gbps,
// oversubscription}], rails, blocks, pods, nvlink_domains, rail_optimized, warnings.
#ifndef TOPOPLACE_TOPOLOGY_MODEL_FABRIC_SUMMARY_H_
#define TOPOPLACE_TOPOLOGY_MODEL_FABRIC_SUMMARY_H_

#include <string>

#include "topology/model/fabric.h"

namespace topoplace {

// The summary as pretty-printed JSON (ends with a newline).
std::string FabricSummaryJson(const Fabric& fabric);
// The summary as a human-readable table (ends with a newline).
std::string FabricSummaryTable(const Fabric& fabric);

}  // namespace topoplace

#endif  // TOPOPLACE_TOPOLOGY_MODEL_FABRIC_SUMMARY_H_
