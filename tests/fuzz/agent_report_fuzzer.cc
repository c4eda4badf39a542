// libFuzzer target: any bytes through the agent report parser and the merge/build path.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "topology/discovery/agent_report.h"
#include "topology/discovery/fabric_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<topoplace::discovery::AgentReport> report =
      topoplace::discovery::ParseAgentReport(text, "fuzz");
  if (!report.ok()) return 0;
  std::vector<topoplace::discovery::FabricFacts> all;
  all.push_back(topoplace::discovery::AgentReportToFacts(*report, "fuzz"));
  (void)topoplace::discovery::BuildFabricFromFacts(std::move(all), "fuzz");
  return 0;
}
