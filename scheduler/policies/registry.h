// The one place that lists every placement policy by name: topoplace's own and the
// baselines.
#ifndef TOPOPLACE_SCHEDULER_POLICIES_REGISTRY_H_
#define TOPOPLACE_SCHEDULER_POLICIES_REGISTRY_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/policies/placement_policy.h"

namespace topoplace::sched {

// Policy names in a stable order, topoplace first.
std::vector<std::string> PolicyNames();
// A new instance of the policy called `name`; InvalidArgument listing the known names.
absl::StatusOr<PlacementPolicyPtr> MakePolicy(absl::string_view name);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_REGISTRY_H_
