#include "topology/discovery/fabric_import.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "topology/base/status_macros.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/fact_merger.h"
#include "topology/discovery/ibnetdiscover.h"
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

absl::StatusOr<FabricPtr> ImportFabric(const ImportSources& sources, std::string name) {
  if (sources.spec.empty() && sources.ibnetdiscover.empty() && sources.lldp.empty() &&
      sources.agent_reports.empty() && sources.agent_report_texts.empty()) {
    return absl::InvalidArgumentError(
        "nothing to import: give --ibnetdiscover, --lldp, --agent-report, --spec or --server "
        "(with stored host reports)");
  }
  std::vector<FabricFacts> facts;
  if (!sources.spec.empty()) {
    TP_ASSIGN_OR_RETURN(const FabricPtr spec, LoadFabricSpec(sources.spec));
    facts.push_back(FactsFromFabric(*spec, sources.spec));
  }
  for (const std::string& path : sources.ibnetdiscover) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadIbnetdiscoverFile(path));
    facts.push_back(std::move(f));
  }
  for (const std::string& path : sources.lldp) {
    TP_ASSIGN_OR_RETURN(FabricFacts f, LoadLldpPath(path));
    facts.push_back(std::move(f));
  }
  for (const std::string& path : sources.agent_reports) {
    TP_ASSIGN_OR_RETURN(const AgentReport report, LoadAgentReportFile(path));
    facts.push_back(AgentReportToFacts(report, path));
  }
  for (const AgentReportText& text : sources.agent_report_texts) {
    TP_ASSIGN_OR_RETURN(const AgentReport report, ParseAgentReport(text.json, text.origin));
    facts.push_back(AgentReportToFacts(report, text.origin));
  }
  return BuildFabricFromFacts(std::move(facts), std::move(name));
}

}  // namespace topoplace::discovery
