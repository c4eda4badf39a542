// The node-selection extension point. A policy looks at free capacity and proposes one or
// more candidate host lists; the engine maps ranks onto each, evaluates the traffic,
// scores it and keeps the cheapest. topoplace's own policy proposes a few topology-aware
// candidates; each baseline proposes exactly the one its documented algorithm picks.
#ifndef TOPOPLACE_SCHEDULER_FRAMEWORK_PLACEMENT_POLICY_H_
#define TOPOPLACE_SCHEDULER_FRAMEWORK_PLACEMENT_POLICY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/framework/queue_outlook.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/steptime/comm_model.h"
#include "scheduler/traffic/traffic_model.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Everything a policy may read. All references outlive the Propose call.
struct PlacementContext {
  const Fabric& fabric;
  const JobSpec& job;
  const RankLayout& layout;
  const TrafficModel& traffic;
  const Inventory& inventory;
  int nodes = 0;      // hosts the job needs (job.nodes())
  uint64_t seed = 1;  // for randomised policies
  // Per switch id, the share of its uplink capacity running jobs already use
  // (PlacementRequest::uplink_busy); empty when unknown.
  std::span<const double> uplink_busy = {};
  // Per block, non-zero for blocks a policy should leave out of multi-block choices;
  // empty: none.
  std::span<const uint8_t> avoid_blocks = {};
  // Per block, non-zero when a link or switch above its leaves is down or degraded
  // (HealthView::block_bad_uplinks): traffic leaving it is at risk. Empty: none known.
  std::span<const uint8_t> bad_uplink_blocks = {};
  // The comm-time model the engine predicts step times with; null outside the engine
  // (then scorers that need it charge nothing).
  const CommModel* comm = nullptr;
  // The jobs to come (PlacementRequest::outlook); null outside the engine.
  const QueueOutlook* outlook = nullptr;
};

// One proposal: node_hosts[k] runs ranks [k*g, (k+1)*g).
struct Candidate {
  std::vector<HostId> node_hosts;
  std::string how;  // one line on how it was chosen, shown by `explain`
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual absl::string_view name() const = 0;
  // Returns at least one candidate, or ResourceExhausted saying why nothing fits under the
  // policy's rules. Preconditions: ctx.inventory.total_free() >= ctx.nodes.
  virtual absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const = 0;
  // Whether the engine may hold the policy's choice back for faster NVLink domains: when
  // the outlook says enough of them are wholly free sooner than the run time the choice
  // would lose (scheduler/placement/faster_domains.h). No baseline does.
  virtual bool waits_for_faster_domains() const { return false; }
};
using PlacementPolicyPtr = std::unique_ptr<PlacementPolicy>;

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_FRAMEWORK_PLACEMENT_POLICY_H_
