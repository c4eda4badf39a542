// When faults change the simulation (simulator.h SimFaults): each fault begins and ends
// for everyone, and a policy learns of it (and of its repair) at once when it cuts hosts
// off, detect_s after it begins (recover_s after it ends) when the policy watches link
// health, and never otherwise.
//
//   const std::vector<FaultStep> steps = FaultTimeline(schedule, actual, watches, 20, 30);
#ifndef TOPOPLACE_SCHEDULER_SIM_FAULT_TIMELINE_H_
#define TOPOPLACE_SCHEDULER_SIM_FAULT_TIMELINE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/faults.h"

namespace topoplace::sched::sim {

// A change to what is broken (begin, end) or to what the policy knows of it.
enum class FaultStepKind : uint8_t { kBegin, kEnd, kKnownBegin, kKnownEnd };

struct FaultStep {
  double time_s = 0;
  FaultStepKind kind = FaultStepKind::kBegin;
  size_t event = 0;  // index into the schedule's events
};

// The steps of `schedule` in time order (steps at one time in the schedule's order, begin
// before end). `fabric_faults` says which faults cut hosts off.
std::vector<FaultStep> FaultTimeline(const FaultSchedule& schedule, const FaultState& fabric_faults,
                                     bool watches_links, double detect_s, double recover_s);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_FAULT_TIMELINE_H_
