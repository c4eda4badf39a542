#include "scheduler/report/plan_report.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json_writer.h"

namespace topoplace::sched {
namespace {

void WriteTierBytes(JsonWriter& w, const std::array<double, kNumTiers>& bytes) {
  w.BeginObject();
  for (int t = 0; t < kNumTiers; ++t) w.Member(TierName(static_cast<Tier>(t)), bytes[t]);
  w.EndObject();
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

void WriteRanks(JsonWriter& w, const Fabric& fabric, const PlacementPlan& plan) {
  w.Key("ranks");
  w.BeginArray();
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    const RankSlot& s = plan.ranks[r];
    w.BeginObject();
    w.Member("rank", r);
    w.Member("host", fabric.hosts()[s.host].name);
    w.Member("gpu", fabric.gpus()[s.gpu].index);
    w.Member("nic", s.nic >= 0 ? absl::string_view(fabric.nics()[s.nic].name) : "");
    w.EndObject();
  }
  w.EndArray();
}

// Per dimension with groups: how many leaves, blocks and pods its groups span.
void WriteSpread(JsonWriter& w, const TrafficReport& t) {
  w.Key("spread");
  w.BeginObject();
  for (Dim d : kAllDims) {
    const GroupSpread& s = t.spread[static_cast<int>(d)];
    if (s.groups == 0) continue;
    w.Key(DimName(d));
    w.BeginObject();
    w.Member("groups", s.groups);
    w.Member("mean_leaves", s.mean_leaves);
    w.Member("mean_blocks", s.mean_blocks);
    w.Member("mean_pods", s.mean_pods);
    w.Member("max_leaves", s.max_leaves);
    w.Member("max_blocks", s.max_blocks);
    w.Member("max_pods", s.max_pods);
    w.EndObject();
  }
  w.EndObject();
}

void WriteLinks(JsonWriter& w, const Fabric& fabric, const PlacementPlan& plan) {
  w.Key("links");
  w.BeginArray();
  for (const LinkLoad& l : plan.links) {
    const auto [lower, upper] = LinkEnds(fabric, l.link);
    w.BeginObject();
    w.Member("lower", lower);
    w.Member("upper", upper);
    w.Member("up_bytes", l.up_bytes);
    w.Member("down_bytes", l.down_bytes);
    w.EndObject();
  }
  w.EndArray();
}

void WriteExplain(JsonWriter& w, const PlacementPlan& plan) {
  w.Key("explain");
  w.BeginArray();
  for (const ScorerContribution& c : plan.explain) {
    w.BeginObject();
    w.Member("scorer", c.scorer);
    w.Member("unit", c.unit);
    w.Member("raw", c.raw);
    w.Member("normalized", c.normalized);
    w.Member("weight", c.weight);
    w.Member("weighted", c.weighted);
    w.EndObject();
  }
  w.EndArray();
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
  // Written straight into text (JsonWriter writes what an ordered_json DOM would dump):
  // the ranks and links of a large job make this ~300 kB, on every Reserve and Place.
  JsonWriter w;
  // A rank's entry is ~100 bytes of text, a link's ~130 (measured on the presets).
  w.Reserve(4096 + 100 * plan.ranks.size() + 130 * plan.links.size());
  w.BeginObject();
  w.Member("schema", "topoplace.plan/v1");
  w.Member("fabric", plan.fabric);
  w.Member("policy", plan.policy);
  w.Member("job", FormatJobSpec(plan.job));
  w.Member("rail_local", plan.routing.rail_local);
  w.Member("how", plan.how);
  w.Key("hosts");
  w.BeginArray();
  for (HostId h : plan.node_hosts) w.String(fabric.hosts()[h].name);
  w.EndArray();
  WriteRanks(w, fabric, plan);
  const TrafficReport& t = plan.traffic;
  w.Key("bytes_per_tier");
  WriteTierBytes(w, t.tier_bytes);
  w.Key("bytes_per_dim_tier");
  w.BeginObject();
  for (Dim d : kAllDims) {
    if (plan.traffic_model.per_rank_bytes[static_cast<int>(d)] <= 0) continue;
    w.Key(DimName(d));
    WriteTierBytes(w, t.dim_tier_bytes[static_cast<int>(d)]);
  }
  w.EndObject();
  w.Member("total_bytes", plan.traffic_model.total_bytes);
  w.Member("spine_bytes", t.spine_bytes());
  w.Member("spine_bytes_lower_bound", plan.spine_bytes_lower_bound);
  w.Member("predicted_step_seconds", plan.step.step_s);
  w.Member("reference_step_seconds", plan.step.reference_s);
  w.Member("predicted_slowdown", plan.step.slowdown);
  w.Member("cross_rail_bytes", t.cross_rail_bytes);
  w.Member("max_leaf_uplink_bytes", t.max_leaf_uplink_bytes);
  const std::vector<const LinkLoad*> busiest = BusiestLinks(plan, 1);
  w.Member("max_link_bytes", busiest.empty() ? 0.0 : Busiest(*busiest[0]));
  w.Member("max_switch_hops", t.max_hops);
  WriteSpread(w, t);
  WriteLinks(w, fabric, plan);
  const PlanFootprint& fp = plan.footprint;
  w.Key("footprint");
  w.BeginObject();
  w.Member("nodes", fp.nodes);
  w.Member("leaves", fp.leaves_used);
  w.Member("blocks", fp.blocks_used);
  w.Member("pods", fp.pods_used);
  w.Member("fragmentation_delta", fp.fragmentation_delta());
  w.EndObject();
  WriteExplain(w, plan);
  w.Member("cost", plan.cost);
  w.Member("candidates_considered", plan.candidates_considered);
  w.Key("notes");
  w.Strings(plan.notes);
  w.EndObject();
  return std::move(w).Take();
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
