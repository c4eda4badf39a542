#include "topology/discovery/fabric_import.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/fact_merger.h"
#include "topology/discovery/grouped_warning.h"
#include "topology/discovery/ibnetdiscover.h"
#include "topology/discovery/k8s_nodes.h"
#include "topology/discovery/k8s_resource_slices.h"
#include "topology/discovery/lldp.h"
#include "topology/io/fabric_file.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::discovery {

absl::StatusOr<FabricPtr> BuildFabricFromFacts(std::vector<FabricFacts> facts, std::string name) {
  FactMerger merger;
  for (FabricFacts& f : facts) merger.Add(std::move(f));
  const FabricFacts merged = std::move(merger).Resolve();
  FabricBuilder builder(std::move(name));
  TP_RETURN_IF_ERROR(ApplyFacts(merged, builder));
  return std::move(builder).Build();
}

namespace {

struct LoadedReport {
  AgentReport report;
  std::string origin;
};

// Two systems reporting one host name ("localhost") with different system image GUIDs are
// two hosts: each is renamed "<name>-<system GUID>", with a warning.
void RenameNamesakes(std::vector<LoadedReport>& reports, std::vector<std::string>& warnings) {
  absl::flat_hash_map<std::string, std::vector<size_t>> by_host;
  for (size_t i = 0; i < reports.size(); ++i) by_host[reports[i].report.host].push_back(i);
  std::vector<std::string> renamed;
  for (const auto& [host, indexes] : by_host) {
    absl::flat_hash_set<uint64_t> systems;
    for (size_t i : indexes) systems.insert(ReportSystemGuid(reports[i].report));
    if (systems.size() < 2) continue;
    for (size_t i : indexes) {
      AgentReport& report = reports[i].report;
      const uint64_t system = ReportSystemGuid(report);
      if (system == 0) continue;  // nothing to tell it by: it keeps the name
      report.host = absl::StrCat(host, "-", absl::StrFormat("%016x", system));
      renamed.push_back(absl::StrCat(host, " -> ", report.host, " (", reports[i].origin, ")"));
    }
  }
  std::sort(renamed.begin(), renamed.end());
  AddGroupedWarning(warnings,
                    "agent reports name one host on different systems (system image GUIDs "
                    "differ); each kept as its own host, renamed",
                    renamed);
}

}  // namespace

absl::StatusOr<FabricPtr> ImportFabric(const ImportSources& sources, std::string name) {
  if (sources.spec.empty() && sources.ibnetdiscover.empty() && sources.lldp.empty() &&
      sources.agent_reports.empty() && sources.agent_report_texts.empty() &&
      sources.k8s_nodes.empty() && sources.k8s_resource_slices.empty()) {
    return absl::InvalidArgumentError(
        "nothing to import: give --ibnetdiscover, --lldp, --agent-report, --k8s-nodes, "
        "--k8s-resource-slices, --spec or --server (with stored host reports)");
  }
  // Reports first: their GUIDs place the CAs of a dump whose descriptions name no host.
  std::vector<LoadedReport> reports;
  for (const std::string& path : sources.agent_reports) {
    TP_ASSIGN_OR_RETURN(AgentReport report, LoadAgentReportFile(path));
    reports.push_back({std::move(report), path});
  }
  for (const AgentReportText& text : sources.agent_report_texts) {
    TP_ASSIGN_OR_RETURN(AgentReport report, ParseAgentReport(text.json, text.origin));
    reports.push_back({std::move(report), text.origin});
  }
  FabricFacts identity;  // warnings about host identity, merged first
  RenameNamesakes(reports, identity.warnings);
  IbnetdiscoverOptions ib_options;
  for (const LoadedReport& r : reports) AddReportedHcas(r.report, ib_options.reported_hcas);

  std::vector<FabricFacts> facts;
  facts.push_back(std::move(identity));
  if (!sources.spec.empty()) {
    TP_ASSIGN_OR_RETURN(const FabricPtr spec, LoadFabricSpec(sources.spec));
    facts.push_back(FactsFromFabric(*spec, sources.spec));
  }
  for (const std::string& path : sources.ibnetdiscover) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadIbnetdiscoverFile(path, ib_options));
    facts.push_back(std::move(f));
  }
  for (const std::string& path : sources.lldp) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadLldpPath(path));
    facts.push_back(std::move(f));
  }
  for (const LoadedReport& r : reports) facts.push_back(AgentReportToFacts(r.report, r.origin));
  // Kubernetes' objects only annotate hosts the other sources found: a node named nowhere
  // else would join the fabric without its cabling.
  absl::flat_hash_set<std::string> known;
  for (const FabricFacts& f : facts) {
    for (const HostFact& h : f.hosts) known.insert(h.name);
  }
  const auto annotate = [&](const std::string& path, FabricFacts f, absl::string_view what) {
    std::vector<std::string> unknown;
    std::erase_if(f.hosts, [&](const HostFact& h) {
      if (known.contains(h.name)) return false;
      unknown.push_back(h.name);
      return true;
    });
    if (!unknown.empty()) {
      f.warnings.push_back(
          absl::StrCat(path, ": ", unknown.size(), " ", what,
                       " no other source knows, ignored: ", absl::StrJoin(unknown, ", ")));
    }
    facts.push_back(std::move(f));
  };
  for (const std::string& path : sources.k8s_nodes) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadK8sNodeList(path));
    annotate(path, std::move(f), "labelled node(s)");
  }
  for (const std::string& path : sources.k8s_resource_slices) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadK8sResourceSlices(path));
    annotate(path, std::move(f), "node(s) with GPU or RDMA NIC slices");
  }
  return BuildFabricFromFacts(std::move(facts), std::move(name));
}

}  // namespace topoplace::discovery
