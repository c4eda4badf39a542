#include "topology/model/fabric_summary.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace topoplace {
namespace {

absl::string_view SwitchTierName(int32_t tier) {
  return tier <= kMaxSwitchTier ? TierName(static_cast<Tier>(tier)) : "core";
}

}  // namespace

std::string FabricSummaryJson(const Fabric& f) {
  nlohmann::ordered_json j;
  j["name"] = f.name();
  j["version"] = f.version();
  j["hosts"] = f.hosts().size();
  j["gpus"] = f.gpus().size();
  j["nics"] = f.nics().size();
  j["links"] = f.links().size();
  j["switches"] = f.switches().size();
  j["tiers"] = nlohmann::ordered_json::array();
  for (const TierStats& t : f.tier_stats()) {
    nlohmann::ordered_json tier;
    tier["tier"] = t.tier;
    tier["name"] = SwitchTierName(t.tier);
    tier["switches"] = t.switches;
    tier["down_gbps"] = t.down_gbps;
    tier["up_gbps"] = t.up_gbps;
    std::optional<double> ratio = t.oversubscription();
    tier["oversubscription"] = ratio ? nlohmann::ordered_json(*ratio) : nullptr;
    j["tiers"].push_back(std::move(tier));
  }
  j["rails"] = f.rails().size();
  j["blocks"] = f.blocks().size();
  j["pods"] = f.pods().size();
  j["nvlink_domains"] = f.nvlink_domains().size();
  j["rail_optimized"] = f.rail_optimized();
  j["warnings"] = f.warnings();
  // Optional, like the fabric file section: present only on fabrics that have any.
  if (!f.aggregation_nodes().empty()) j["aggregation_nodes"] = f.aggregation_nodes().size();
  if (!f.unattributed_nics().empty()) j["unattributed_nics"] = f.unattributed_nics().size();
  return j.dump(2) + "\n";
}

std::string FabricSummaryTable(const Fabric& f) {
  std::string out = absl::StrFormat("fabric %s (version %d)\n", f.name(), f.version());
  absl::StrAppendFormat(&out, "  hosts %d   gpus %d   nics %d   links %d   switches %d\n",
                        f.hosts().size(), f.gpus().size(), f.nics().size(), f.links().size(),
                        f.switches().size());
  absl::StrAppendFormat(&out, "  rails %d%s   blocks %d   pods %d   nvlink domains %d\n",
                        f.rails().size(), f.rail_optimized() ? " (rail-optimised)" : "",
                        f.blocks().size(), f.pods().size(), f.nvlink_domains().size());
  if (!f.aggregation_nodes().empty()) {
    absl::StrAppendFormat(&out, "  sharp aggregation nodes %d\n", f.aggregation_nodes().size());
  }
  if (!f.unattributed_nics().empty()) {
    absl::StrAppendFormat(&out, "  unattributed HCAs %d (on leaves, in no host; see warnings)\n",
                          f.unattributed_nics().size());
  }
  absl::StrAppend(&out, "\n  tier  name    switches   down Gb/s     up Gb/s  oversub\n");
  for (const TierStats& t : f.tier_stats()) {
    std::optional<double> ratio = t.oversubscription();
    absl::StrAppendFormat(&out, "  %4d  %-6s %9d %11.0f %11.0f  %s\n", t.tier,
                          SwitchTierName(t.tier), t.switches, t.down_gbps, t.up_gbps,
                          ratio ? absl::StrFormat("%.2f:1", *ratio) : std::string("-"));
  }
  if (!f.warnings().empty()) {
    absl::StrAppend(&out, "\n  warnings (", f.warnings().size(), "):\n");
    for (const std::string& w : f.warnings()) absl::StrAppend(&out, "  - ", w, "\n");
  }
  return out;
}

}  // namespace topoplace
