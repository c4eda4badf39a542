// The fault trace: an operator's own incidents, replayed by the simulator instead of (or
// beside) the fault model. One event per line, blank lines and '#' comments skipped:
//
//   #topoplace-faults v1
//   # time_s element kind duration_s [capacity]
//   3600 link:b00-leaf0--spine3 fail 7200
//   5400 link:b01-n002/mlx5_0--b01-leaf0 degrade 1800 0.5
//   9000 switch:spine7 fail 14400
//   86400 host:b02-n011 fail 43200
//
// element: host:NAME, switch:NAME or link:END--END (faults.h); kind: fail (down until
// repaired after duration_s) or degrade (at `capacity` of its speed, a share in (0, 1),
// for duration_s; links only).
#ifndef TOPOPLACE_SCHEDULER_SIM_FAULT_TRACE_H_
#define TOPOPLACE_SCHEDULER_SIM_FAULT_TRACE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/sim/faults.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

inline constexpr absl::string_view kFaultTraceHeader = "#topoplace-faults v1";

// Parses `text` (which must start with the header line) against `fabric`. InvalidArgument
// "SOURCE:LINE: ..." naming the field and what was expected, for the first bad line; a
// name the fabric lacks is an error of that line too. Events come sorted by time.
absl::StatusOr<FaultSchedule> ParseFaultTrace(absl::string_view text, absl::string_view source_name,
                                              const Fabric& fabric);
// Reads and parses `path`; NotFound if it cannot be read.
absl::StatusOr<FaultSchedule> LoadFaultTraceFile(const std::string& path, const Fabric& fabric);
// The schedule as a fault trace that ParseFaultTrace reads back to the same events.
std::string FormatFaultTrace(const FaultSchedule& schedule, const Fabric& fabric);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_FAULT_TRACE_H_
