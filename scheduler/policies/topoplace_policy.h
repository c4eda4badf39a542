// topoplace's own node selection: the smallest domain that fits (block, then pod, then
// cluster); inside it, best fit. When the job must span blocks, whole pipeline stages (or,
// as an alternative candidate, whole DP-index columns) are packed into blocks so that
// only the cheap dimension crosses the spine, using as few blocks as possible.
#ifndef TOPOPLACE_SCHEDULER_POLICIES_TOPOPLACE_POLICY_H_
#define TOPOPLACE_SCHEDULER_POLICIES_TOPOPLACE_POLICY_H_

#include "scheduler/framework/placement_policy.h"

namespace topoplace::sched {

inline constexpr absl::string_view kTopoplacePolicyName = "topoplace";

class TopoplacePolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kTopoplacePolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override;
  bool waits_for_faster_domains() const override { return true; }
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_TOPOPLACE_POLICY_H_
