#include "scheduler/sim/fault_timeline.h"

#include <algorithm>

namespace topoplace::sched::sim {

std::vector<FaultStep> FaultTimeline(const FaultSchedule& schedule, const FaultState& fabric_faults,
                                     bool watches_links, double detect_s, double recover_s) {
  std::vector<FaultStep> steps;
  for (size_t i = 0; i < schedule.events.size(); ++i) {
    const FaultEvent& e = schedule.events[i];
    const double end = e.time_s + e.duration_s;
    steps.push_back({e.time_s, FaultStepKind::kBegin, i});
    steps.push_back({end, FaultStepKind::kEnd, i});
    if (fabric_faults.CutsOffHosts(e)) {
      steps.push_back({e.time_s, FaultStepKind::kKnownBegin, i});
      steps.push_back({end, FaultStepKind::kKnownEnd, i});
    } else if (watches_links) {
      steps.push_back({e.time_s + detect_s, FaultStepKind::kKnownBegin, i});
      steps.push_back({end + recover_s, FaultStepKind::kKnownEnd, i});
    }
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const FaultStep& a, const FaultStep& b) { return a.time_s < b.time_s; });
  return steps;
}

}  // namespace topoplace::sched::sim
