#include "scheduler/policies/registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/policies/topoplace_policy.h"

namespace topoplace::sched {
namespace {

struct PolicyEntry {
  absl::string_view name;
  PlacementPolicyPtr (*factory)();
};

PlacementPolicyPtr MakeTopoplacePolicy() { return std::make_unique<TopoplacePolicy>(); }

const std::vector<PolicyEntry>& Entries() {
  static const std::vector<PolicyEntry> kEntries = {
      {kTopoplacePolicyName, &MakeTopoplacePolicy},
      {kFirstFitPolicyName, &MakeFirstFitPolicy},
      {kRandomPolicyName, &MakeRandomPolicy},
      {kSlurmTreePolicyName, &MakeSlurmTreePolicy},
      {kSlurmBlockPolicyName, &MakeSlurmBlockPolicy},
      {kKueueBestFitPolicyName, &MakeKueueBestFitPolicy},
      {kVolcanoPolicyName, &MakeVolcanoPolicy},
  };
  return kEntries;
}

}  // namespace

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const PolicyEntry& e : Entries()) names.emplace_back(e.name);
  return names;
}

absl::StatusOr<PlacementPolicyPtr> MakePolicy(absl::string_view name) {
  for (const PolicyEntry& e : Entries()) {
    if (e.name == name) return e.factory();
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown policy '", name, "' (expected one of ",
                                                 absl::StrJoin(PolicyNames(), ", "), ")"));
}

}  // namespace topoplace::sched
