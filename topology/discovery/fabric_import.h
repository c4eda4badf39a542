// The whole discovery pipeline behind `topoplace fabric import`: read every source, merge
// their facts, build one Fabric.
//
//   ImportSources sources{.ibnetdiscover = {"ib.txt"}, .lldp = {"lldp/"}};
//   TP_ASSIGN_OR_RETURN(FabricPtr fabric, ImportFabric(sources, "lab"));
//
// Either every source is read and the Fabric is built, or nothing is: the first error
// (naming file and line or field) is returned.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_FABRIC_IMPORT_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_FABRIC_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "topology/discovery/facts.h"
#include "topology/model/fabric.h"

namespace topoplace::discovery {

struct ImportSources {
  std::vector<std::string> ibnetdiscover = {};  // dump files
  std::vector<std::string> lldp = {};           // neighbor files or directories of them
  std::vector<std::string> agent_reports = {};  // `topoplace-agent --once --json` outputs
  std::string spec = {};                        // optional fabric spec file (or preset:NAME)
};

// Merges `facts` (in order: earlier sources win conflicts) and builds the Fabric.
absl::StatusOr<FabricPtr> BuildFabricFromFacts(std::vector<FabricFacts> facts, std::string name);

// Reads all `sources` (spec first, then ibnetdiscover, LLDP, agent reports) and builds
// the merged Fabric named `name`. InvalidArgument if no source is given.
absl::StatusOr<FabricPtr> ImportFabric(const ImportSources& sources, std::string name);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_FABRIC_IMPORT_H_
