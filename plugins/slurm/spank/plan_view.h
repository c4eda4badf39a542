// What the SPANK plugin needs from a placement plan: the rank map, the footprint for the
// one-line summary, and the hostfile that steers Slurm to the planned nodes in rank order.
//
//   TP_ASSIGN_OR_RETURN(PlanView plan, ParsePlanJson(reserve.plan().json()));
//   std::string hostfile = HostfileText(plan, node_map);
//   std::cerr << SummaryLine("alloc-3", plan) << "\n";
//
// Pure functions; thread-safe.
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_PLAN_VIEW_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_PLAN_VIEW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plugins/common/node_name_map.h"

namespace topoplace::slurm {

struct PlanRank {
  int rank = 0;
  std::string host;  // fabric host name
  int gpu = 0;       // local GPU index
  std::string nic;   // NIC name on that host; empty if none
};

struct PlanView {
  std::vector<std::string> hosts;  // fabric host names, one per node, in rank order
  std::vector<PlanRank> ranks;     // sorted by rank
  int blocks = 0;
  int pods = 0;
  double spine_bytes = 0;              // per iteration
  double spine_bytes_lower_bound = 0;  // per iteration
  // The engine's predicted slowdown against the compact reference; 0 where the plan
  // predates it (then the summary leaves it out).
  double predicted_slowdown = 0;
};

// Reads a plan in the scheduler's JSON (schema "topoplace.plan/v1", the `json` field of
// PlacementPlan and ExplainResponse.plan_json). InvalidArgument if it is not such a plan.
absl::StatusOr<PlanView> ParsePlanJson(absl::string_view json);

// The SLURM_HOSTFILE text: one line per rank, in rank order, each the rank's Slurm node
// name (`node_map` applied). With arbitrary distribution Slurm requests exactly these nodes.
std::string HostfileText(const PlanView& plan, const plugins::NodeNameMap& node_map);

// "topoplace: alloc-3: 4 nodes (b00-n000 ...) in 1 block, spine 0 B/iter (lower bound 0 B)".
std::string SummaryLine(absl::string_view plan_id, const PlanView& plan,
                        const plugins::NodeNameMap& node_map);

// "0 B", "12.5 MB", "3.20 GB" (decimal units).
std::string HumanBytes(double bytes);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_PLAN_VIEW_H_
