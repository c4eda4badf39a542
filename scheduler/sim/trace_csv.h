// The CSV of public derived GPU-cluster traces (e.g. the Philly sample in RFold's
// WorkloadGen): a header `#job id,arrival time (sec),topology,shape,size,duration (sec)`
// then one job per line. Only id, arrival, size (GPUs) and duration are used; `topology`
// and `shape` describe where the job ran on the original cluster, not what it needs.
// Sizes become PTD-P jobs by the rule in degree_rule.h.
#ifndef TOPOPLACE_SCHEDULER_SIM_TRACE_CSV_H_
#define TOPOPLACE_SCHEDULER_SIM_TRACE_CSV_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/sim/trace.h"

namespace topoplace::sched::sim {

// Parses CSV `text`. Lines starting with '#' and blank lines are skipped. Every malformed
// line is InvalidArgument "SOURCE:LINE: field 'F': expected ..., got '...'" (the first one).
// The result is sorted by arrival.
absl::StatusOr<Trace> ParseCsvTrace(absl::string_view text, absl::string_view source_name);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_TRACE_CSV_H_
