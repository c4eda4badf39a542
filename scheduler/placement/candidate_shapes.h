// The engine's first stage after the policy proposes (PlacementEngine::Place): every
// candidate's shape checked in proposal order. Consecutive node slots carry the TP groups
// (RankOrder), so where the policy's order would split one across NVLink domains the hosts
// of one domain are put side by side, and a candidate whose TP groups still span domains is
// turned down, saying which group. A candidate with the very hosts of an earlier one is
// marked as its twin: its evaluation would be the same.
//
//   TP_ASSIGN_OR_RETURN(CandidateShapes shapes,
//                       CheckShapes(fabric, inv, job, policy.name(), candidates));
//   for (size_t i : shapes.order) ...  // the candidates left, twins included
//
// Pure function of its input (it reorders candidates' hosts in place); thread-safe.
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SHAPES_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SHAPES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/inventory.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/job/job_spec.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

struct CandidateShapes {
  std::vector<size_t> order;  // candidates whose shape holds, in proposal order
  // Per candidate: an earlier one of `order` with the very same node hosts, or -1.
  std::vector<int> same_as;
  // Per candidate: why it was turned down (here, or by a later stage), or nullopt.
  std::vector<std::optional<std::string>> rejected;
};

// Internal when a candidate does not have job.nodes() hosts (a policy's bug, named).
absl::StatusOr<CandidateShapes> CheckShapes(const Fabric& fabric, const Inventory& inv,
                                            const JobSpec& job, absl::string_view policy,
                                            std::vector<Candidate>& candidates);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_CANDIDATE_SHAPES_H_
