// The evaluation stage of PlacementEngine::Choose (choose_stage.h): one candidate in full
// (its rank map, traffic, footprint, max_tier and scores), and the max_tier rule it checks.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_EVALUATE_CANDIDATE_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_EVALUATE_CANDIDATE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/framework/footprint.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/placement/choose_stage.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/traffic/traffic_report.h"

namespace topoplace::sched {

// Why a candidate breaks the job's max_tier, or nullopt if it does not.
std::optional<std::string> MaxTierViolation(const JobSpec& job, const PlanFootprint& fp,
                                            const TrafficReport& traffic);

// An evaluated candidate's bytes per link with fluid ECMP (LinkLoads over one more walk of
// its traffic, with the network tally): what the link-step scorer and the wait for faster
// domains read.
std::vector<LinkLoad> FluidLinkLoads(const ChooseStage& stage, const LinkIndex& links,
                                     const EvaluatedCandidate& ev);

// Candidate `index` in full: its rank map, traffic, footprint and scores, or nullopt with
// `rejected` saying why when it breaks a hard rule (no network path, a hard max_tier).
// Internal when the policy chose a host the rank map cannot use. A plan that had to relax
// a soft max_tier costs 1e6 more, so that one keeping it always wins.
absl::StatusOr<std::optional<EvaluatedCandidate>> EvaluateCandidate(
    const ChooseStage& stage, const Occupancy& occupancy, const Candidate& cand, size_t index,
    std::optional<std::string>& rejected);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_EVALUATE_CANDIDATE_H_
