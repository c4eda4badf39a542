// The native trace format: full job specs, for workloads whose shape matters.
//
//   #topoplace-trace v1
//   # id  arrival_s  duration_s  job spec (docs/DESIGN.md contract, no spaces)
//   1     0          3600        tp=8,pp=4,dp=2,model=70b
//   2     60         600         tp=8,dp=4,dp_bytes=2e9,max_tier=block
//
// Fields are separated by whitespace; '#' starts a comment line; blank lines are skipped.
#ifndef TOPOPLACE_SCHEDULER_SIM_TRACE_NATIVE_H_
#define TOPOPLACE_SCHEDULER_SIM_TRACE_NATIVE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/sim/trace.h"

namespace topoplace::sched::sim {

// The first line that marks a file as native.
inline constexpr absl::string_view kNativeTraceHeader = "#topoplace-trace v1";

// Parses native `text` (the header line is optional here). InvalidArgument
// "SOURCE:LINE: ..." for the first malformed line, including job-spec errors.
absl::StatusOr<Trace> ParseNativeTrace(absl::string_view text, absl::string_view source_name);

// Writes `trace` in the native format (header included); parses back to the same jobs.
std::string FormatNativeTrace(const Trace& trace);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_TRACE_NATIVE_H_
