// Baseline node-selection policies, each implemented from its scheduler's documented
// algorithm so that topoplace can be compared side by side in one run. They choose hosts
// only; rank mapping, traffic evaluation and scoring are the engine's, identical for all.
// Each factory returns a fresh policy; the registry (scheduler/builtin/builtin_plugins.h) lists
// them by name.
#ifndef TOPOPLACE_SCHEDULER_BASELINES_BASELINE_POLICIES_H_
#define TOPOPLACE_SCHEDULER_BASELINES_BASELINE_POLICIES_H_

#include "absl/strings/string_view.h"
#include "scheduler/framework/placement_policy.h"

namespace topoplace::sched {

inline constexpr absl::string_view kFirstFitPolicyName = "first-fit";
inline constexpr absl::string_view kRandomPolicyName = "random";
inline constexpr absl::string_view kSlurmTreePolicyName = "slurm-tree";
inline constexpr absl::string_view kSlurmBlockPolicyName = "slurm-block";
inline constexpr absl::string_view kKueueBestFitPolicyName = "kueue-bestfit";
inline constexpr absl::string_view kVolcanoPolicyName = "volcano";
inline constexpr absl::string_view kKaiPolicyName = "kai";

// The first eligible hosts in fabric order (a topology-unaware scheduler).
PlacementPolicyPtr MakeFirstFitPolicy();
// Uniformly random eligible hosts (seeded by the request), in host-name order.
PlacementPolicyPtr MakeRandomPolicy();
// Slurm topology/tree.
PlacementPolicyPtr MakeSlurmTreePolicy();
// Slurm topology/block.
PlacementPolicyPtr MakeSlurmBlockPolicy();
// Kueue Topology Aware Scheduling, BestFit.
PlacementPolicyPtr MakeKueueBestFitPolicy();
// Volcano network-topology-aware scheduling (HyperNodes) with binpack.
PlacementPolicyPtr MakeVolcanoPolicy();
// NVIDIA KAI Scheduler's topology plugin (required/preferred levels) with GPU binpack.
PlacementPolicyPtr MakeKaiPolicy();

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_BASELINES_BASELINE_POLICIES_H_
