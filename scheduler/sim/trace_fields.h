// Number parsing shared by the trace readers: one message shape for every bad field, so
// that a malformed line always reads "SOURCE:LINE: field 'F': expected E, got 'V'".
// Internal to scheduler/sim.
#ifndef TOPOPLACE_SCHEDULER_SIM_TRACE_FIELDS_H_
#define TOPOPLACE_SCHEDULER_SIM_TRACE_FIELDS_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/sim/trace.h"

namespace topoplace::sched::sim {

// Where a line came from, for messages.
struct LineRef {
  absl::string_view source;
  int line = 0;
};

// InvalidArgument "SOURCE:LINE: MESSAGE".
absl::Status LineError(LineRef where, absl::string_view message);

// A non-negative integer field.
absl::StatusOr<int64_t> ParseIdField(LineRef where, absl::string_view field,
                                     absl::string_view value);
// A finite number >= 0 (seconds).
absl::StatusOr<double> ParseSecondsField(LineRef where, absl::string_view field,
                                         absl::string_view value);

// Reads a line-oriented trace: skips blank lines and '#' comments, hands every other
// (whitespace-stripped) line to `parse_line`, stops at its first error, and returns the
// jobs sorted by arrival.
absl::StatusOr<Trace> ParseTraceLines(
    absl::string_view text, absl::string_view source_name,
    const std::function<absl::StatusOr<TraceJob>(LineRef, absl::string_view)>& parse_line);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_TRACE_FIELDS_H_
