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

// An agent report already in memory (e.g. fetched from topoplaced), with the name that
// messages and warnings cite for it ("topoplaced 10.0.0.1:7469: host h1").
struct AgentReportText {
  std::string origin;
  std::string json;
};

struct ImportSources {
  std::vector<std::string> ibnetdiscover = {};  // dump files
  std::vector<std::string> lldp = {};           // neighbor files or directories of them
  std::vector<std::string> agent_reports = {};  // `topoplace-agent --once --json` outputs
  std::string spec = {};                        // optional fabric spec file (or preset:NAME)
  std::vector<AgentReportText> agent_report_texts = {};  // merged after agent_reports
  // Kubernetes NodeLists whose nvidia.com/gpu.clique labels name NVLink domains
  // (k8s_nodes.h), merged last: what a host's own GPUs report wins.
  std::vector<std::string> k8s_nodes = {};
  // Kubernetes ResourceSliceLists of the GPU and RDMA NIC DRA drivers: GPUs, NICs and
  // their PCIe-root pairing (k8s_resource_slices.h), merged last as the NodeLists are.
  std::vector<std::string> k8s_resource_slices = {};
};

// Merges `facts` (in order: earlier sources win conflicts) and builds the Fabric.
absl::StatusOr<FabricPtr> BuildFabricFromFacts(std::vector<FabricFacts> facts, std::string name);

// Reads all `sources` (spec first, then ibnetdiscover, LLDP, agent report files, agent
// report texts) and builds
// the merged Fabric named `name`. InvalidArgument if no source is given.
absl::StatusOr<FabricPtr> ImportFabric(const ImportSources& sources, std::string name);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_FABRIC_IMPORT_H_
