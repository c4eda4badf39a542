#include "plugins/slurm/spank/plan_view.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace topoplace::slurm {
namespace {

using Json = nlohmann::json;

absl::Status NotAPlan(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("placement plan JSON: ", why));
}

}  // namespace

absl::StatusOr<PlanView> ParsePlanJson(absl::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return NotAPlan("not a JSON object");
  if (j.value("schema", "") != "topoplace.plan/v1")
    return NotAPlan("schema is not topoplace.plan/v1");
  PlanView plan;
  try {
    for (const Json& host : j.at("hosts")) plan.hosts.push_back(host.get<std::string>());
    for (const Json& r : j.at("ranks")) {
      plan.ranks.push_back(PlanRank{r.at("rank").get<int>(), r.at("host").get<std::string>(),
                                    r.at("gpu").get<int>(), r.value("nic", std::string())});
    }
    if (j.contains("footprint")) {
      plan.blocks = j["footprint"].value("blocks", 0);
      plan.pods = j["footprint"].value("pods", 0);
    }
    plan.spine_bytes = j.value("spine_bytes", 0.0);
    plan.spine_bytes_lower_bound = j.value("spine_bytes_lower_bound", 0.0);
    plan.predicted_slowdown = j.value("predicted_slowdown", 0.0);
  } catch (const Json::exception& e) {
    return NotAPlan(e.what());
  }
  if (plan.ranks.empty()) return NotAPlan("no ranks");
  std::sort(plan.ranks.begin(), plan.ranks.end(),
            [](const PlanRank& a, const PlanRank& b) { return a.rank < b.rank; });
  return plan;
}

std::string HostfileText(const PlanView& plan, const plugins::NodeNameMap& node_map) {
  std::string text;
  for (const PlanRank& r : plan.ranks) absl::StrAppend(&text, node_map.NodeName(r.host), "\n");
  return text;
}

std::string SummaryLine(absl::string_view plan_id, const PlanView& plan,
                        const plugins::NodeNameMap& node_map) {
  std::vector<std::string> nodes;
  for (const std::string& host : plan.hosts) nodes.push_back(node_map.NodeName(host));
  std::string line = absl::StrCat(
      "topoplace: ", plan_id, ": ", plan.ranks.size(), " ranks on ", nodes.size(),
      nodes.size() == 1 ? " node" : " nodes", " (", absl::StrJoin(nodes, ","), ") in ", plan.blocks,
      plan.blocks == 1 ? " block" : " blocks", ", spine ", HumanBytes(plan.spine_bytes),
      "/iter (lower bound ", HumanBytes(plan.spine_bytes_lower_bound), ")");
  if (plan.predicted_slowdown > 0) {
    absl::StrAppend(&line, absl::StrFormat(", predicted slowdown %.2fx", plan.predicted_slowdown));
  }
  return line;
}

std::string HumanBytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "kB", "MB", "GB", "TB", "PB"};
  size_t unit = 0;
  while (bytes >= 1000 && unit + 1 < kUnits.size()) {
    bytes /= 1000;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f B", bytes);
  // Three significant digits; one format per branch (clang wants them constant).
  if (bytes < 10) return absl::StrFormat("%.2f %s", bytes, kUnits[unit]);
  if (bytes < 100) return absl::StrFormat("%.1f %s", bytes, kUnits[unit]);
  return absl::StrFormat("%.0f %s", bytes, kUnits[unit]);
}

}  // namespace topoplace::slurm
