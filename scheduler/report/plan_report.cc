#include "scheduler/report/plan_report.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace topoplace::sched {
namespace {

using Json = nlohmann::ordered_json;

Json TierBytesJson(const std::array<double, kNumTiers>& bytes) {
  Json j = Json::object();
  for (int t = 0; t < kNumTiers; ++t) j[std::string(TierName(static_cast<Tier>(t)))] = bytes[t];
  return j;
}

// The link's lower end (the NIC, or the switch of the lower tier) and its upper end.
std::pair<std::string, std::string> LinkEnds(const Fabric& fabric, LinkId id) {
  const Link& link = fabric.links()[id];
  const auto tier = [&](const Endpoint& e) {
    return e.kind == Endpoint::Kind::kNic ? 0 : fabric.switches()[e.id].tier;
  };
  const bool a_lower = tier(link.a) <= tier(link.b);
  return {fabric.EndpointName(a_lower ? link.a : link.b),
          fabric.EndpointName(a_lower ? link.b : link.a)};
}

double Busiest(const LinkLoad& l) { return std::max(l.up_bytes, l.down_bytes); }

// Up to `n` of the plan's links, busiest first (ties in link order).
std::vector<const LinkLoad*> BusiestLinks(const PlacementPlan& plan, size_t n) {
  std::vector<const LinkLoad*> out;
  for (const LinkLoad& l : plan.links) out.push_back(&l);
  n = std::min(n, out.size());
  std::partial_sort(
      out.begin(), out.begin() + n, out.end(), [](const LinkLoad* a, const LinkLoad* b) {
        return Busiest(*a) != Busiest(*b) ? Busiest(*a) > Busiest(*b) : a->link < b->link;
      });
  out.resize(n);
  return out;
}

}  // namespace

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (std::abs(bytes) >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  return u == 0 ? absl::StrFormat("%.0f B", bytes) : absl::StrFormat("%.2f %s", bytes, kUnits[u]);
}

std::string PlanToJson(const Fabric& fabric, const PlacementPlan& plan) {
  Json j;
  j["schema"] = "topoplace.plan/v1";
  j["fabric"] = plan.fabric;
  j["policy"] = plan.policy;
  j["job"] = FormatJobSpec(plan.job);
  j["rail_local"] = plan.routing.rail_local;
  j["how"] = plan.how;
  Json hosts = Json::array();
  for (HostId h : plan.node_hosts) hosts.push_back(fabric.hosts()[h].name);
  j["hosts"] = std::move(hosts);
  Json ranks = Json::array();
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    const RankSlot& s = plan.ranks[r];
    ranks.push_back(Json{{"rank", r},
                         {"host", fabric.hosts()[s.host].name},
                         {"gpu", fabric.gpus()[s.gpu].index},
                         {"nic", s.nic >= 0 ? fabric.nics()[s.nic].name : ""}});
  }
  j["ranks"] = std::move(ranks);
  const TrafficReport& t = plan.traffic;
  j["bytes_per_tier"] = TierBytesJson(t.tier_bytes);
  Json per_dim = Json::object();
  for (Dim d : kAllDims) {
    if (plan.traffic_model.per_rank_bytes[static_cast<int>(d)] <= 0) continue;
    per_dim[std::string(DimName(d))] = TierBytesJson(t.dim_tier_bytes[static_cast<int>(d)]);
  }
  j["bytes_per_dim_tier"] = std::move(per_dim);
  j["total_bytes"] = plan.traffic_model.total_bytes;
  j["spine_bytes"] = t.spine_bytes();
  j["spine_bytes_lower_bound"] = plan.spine_bytes_lower_bound;
  j["predicted_step_seconds"] = plan.step.step_s;
  j["reference_step_seconds"] = plan.step.reference_s;
  j["predicted_slowdown"] = plan.step.slowdown;
  j["cross_rail_bytes"] = t.cross_rail_bytes;
  j["max_leaf_uplink_bytes"] = t.max_leaf_uplink_bytes;
  const std::vector<const LinkLoad*> busiest = BusiestLinks(plan, 1);
  j["max_link_bytes"] = busiest.empty() ? 0.0 : Busiest(*busiest[0]);
  j["max_switch_hops"] = t.max_hops;
  Json spread = Json::object();
  for (Dim d : kAllDims) {
    const GroupSpread& s = t.spread[static_cast<int>(d)];
    if (s.groups == 0) continue;
    spread[std::string(DimName(d))] = Json{
        {"groups", s.groups},       {"mean_leaves", s.mean_leaves}, {"mean_blocks", s.mean_blocks},
        {"mean_pods", s.mean_pods}, {"max_leaves", s.max_leaves},   {"max_blocks", s.max_blocks},
        {"max_pods", s.max_pods}};
  }
  j["spread"] = std::move(spread);
  Json links = Json::array();
  for (const LinkLoad& l : plan.links) {
    auto [lower, upper] = LinkEnds(fabric, l.link);
    links.push_back(Json{{"lower", std::move(lower)},
                         {"upper", std::move(upper)},
                         {"up_bytes", l.up_bytes},
                         {"down_bytes", l.down_bytes}});
  }
  j["links"] = std::move(links);
  const PlanFootprint& fp = plan.footprint;
  j["footprint"] = Json{{"nodes", fp.nodes},
                        {"leaves", fp.leaves_used},
                        {"blocks", fp.blocks_used},
                        {"pods", fp.pods_used},
                        {"fragmentation_delta", fp.fragmentation_delta()}};
  Json explain = Json::array();
  for (const ScorerContribution& c : plan.explain) {
    explain.push_back(Json{{"scorer", c.scorer},
                           {"unit", c.unit},
                           {"raw", c.raw},
                           {"normalized", c.normalized},
                           {"weight", c.weight},
                           {"weighted", c.weighted}});
  }
  j["explain"] = std::move(explain);
  j["cost"] = plan.cost;
  j["candidates_considered"] = plan.candidates_considered;
  j["notes"] = plan.notes;
  return j.dump(2);
}

void PrintPlanTable(const Fabric& fabric, const PlacementPlan& plan, std::ostream& out,
                    int max_rank_rows) {
  const TrafficReport& t = plan.traffic;
  const PlanFootprint& fp = plan.footprint;
  out << "policy    " << plan.policy << "  (" << plan.how << ")\n";
  out << "fabric    " << plan.fabric << "\n";
  out << "job       " << FormatJobSpec(plan.job) << "\n";
  out << "routing   " << (plan.routing.rail_local ? "rail-local (PXN)" : "sender NIC") << "\n";
  out << "footprint " << fp.nodes << " nodes, " << fp.leaves_used << " leaves, " << fp.blocks_used
      << " blocks, " << fp.pods_used << " pods\n";
  std::vector<std::string> names;
  for (HostId h : plan.node_hosts) names.push_back(fabric.hosts()[h].name);
  constexpr size_t kHostsShown = 12;
  out << "nodes     "
      << absl::StrJoin(names.begin(), names.begin() + std::min(kHostsShown, names.size()), " ");
  if (names.size() > kHostsShown) out << " ... (" << names.size() << " in all)";
  out << "\n\n";

  out << absl::StrFormat("%-8s %-16s %-6s %-10s\n", "rank", "host", "gpu", "nic");
  const int shown = std::min<int>(max_rank_rows, static_cast<int>(plan.ranks.size()));
  for (int r = 0; r < shown; ++r) {
    const RankSlot& s = plan.ranks[r];
    out << absl::StrFormat("%-8d %-16s %-6d %-10s\n", r, fabric.hosts()[s.host].name,
                           fabric.gpus()[s.gpu].index,
                           s.nic >= 0 ? fabric.nics()[s.nic].name : "-");
  }
  if (shown < static_cast<int>(plan.ranks.size())) {
    out << "... " << plan.ranks.size() - shown << " more ranks (--json for all)\n";
  }
  out << "\n"
      << absl::StrFormat("%-10s %14s %14s %14s %14s\n", "bytes/iter", "nvlink", "leaf", "spine",
                         "core");
  const auto row = [&](absl::string_view label, const std::array<double, kNumTiers>& b) {
    out << absl::StrFormat("%-10s %14s %14s %14s %14s\n", label, FormatBytes(b[0]),
                           FormatBytes(b[1]), FormatBytes(b[2]), FormatBytes(b[3]));
  };
  for (Dim d : kAllDims) {
    if (plan.traffic_model.per_rank_bytes[static_cast<int>(d)] <= 0) continue;
    row(DimName(d), t.dim_tier_bytes[static_cast<int>(d)]);
  }
  row("total", t.tier_bytes);
  out << "\n";
  out << "spine bytes        " << FormatBytes(t.spine_bytes()) << "  (lower bound "
      << FormatBytes(plan.spine_bytes_lower_bound) << ")\n";
  out << absl::StrFormat(
      "predicted step     %.4g s/iteration, %.2fx the compact reference's %.4g s\n",
      plan.step.step_s, plan.step.slowdown, plan.step.reference_s);
  out << "max switch hops    " << t.max_hops << "\n";
  out << "hottest leaf up    " << FormatBytes(t.max_leaf_uplink_bytes) << "\n";
  out << "links crossed      " << plan.links.size() << "\n";
  for (const LinkLoad* l : BusiestLinks(plan, 3)) {
    const auto [lower, upper] = LinkEnds(fabric, l->link);
    out << absl::StrFormat("  busy link        %s - %s: %s up, %s down\n", lower, upper,
                           FormatBytes(l->up_bytes), FormatBytes(l->down_bytes));
  }
  out << "cross-rail bytes   " << FormatBytes(t.cross_rail_bytes) << "\n";
  for (Dim d : {Dim::kDp, Dim::kPp, Dim::kCp, Dim::kEp}) {
    const GroupSpread& s = t.spread[static_cast<int>(d)];
    if (s.groups == 0) continue;
    out << absl::StrFormat(
        "spread %-3s         %d groups: mean %.2f blocks (max %d), %.2f "
        "leaves, %.2f pods\n",
        DimName(d), s.groups, s.mean_blocks, s.max_blocks, s.mean_leaves, s.mean_pods);
  }
  out << "fragmentation      " << (fp.fragmentation_delta() >= 0 ? "+" : "")
      << fp.fragmentation_delta() << " partly used blocks\n\n";
  out << absl::StrFormat("%-16s %14s %8s %7s %9s  %s\n", "scorer", "raw", "norm", "weight",
                         "weighted", "unit");
  for (const ScorerContribution& c : plan.explain) {
    out << absl::StrFormat("%-16s %14.4g %8.4f %7.2f %9.4f  %s\n", c.scorer, c.raw, c.normalized,
                           c.weight, c.weighted, c.unit);
  }
  out << absl::StrFormat("%-16s %14s %8s %7s %9.4f  (%d candidates)\n", "total", "", "", "",
                         plan.cost, plan.candidates_considered);
  for (const std::string& note : plan.notes) out << "note: " << note << "\n";
}

}  // namespace topoplace::sched
