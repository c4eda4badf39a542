#include "scheduler/sim/trace_csv.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "scheduler/sim/degree_rule.h"
#include "scheduler/sim/trace_fields.h"

namespace topoplace::sched::sim {
namespace {

// Column positions of `#job id,arrival time (sec),topology,shape,size,duration (sec)`.
constexpr int kIdCol = 0, kArrivalCol = 1, kSizeCol = 4, kDurationCol = 5, kColumns = 6;

absl::StatusOr<TraceJob> ParseCsvLine(LineRef where, absl::string_view line) {
  std::vector<absl::string_view> cols = absl::StrSplit(line, ',');
  if (static_cast<int>(cols.size()) != kColumns) {
    return LineError(where, absl::StrCat("expected ", kColumns,
                                         " comma-separated fields (job id, arrival time, "
                                         "topology, shape, size, duration), got ",
                                         cols.size()));
  }
  for (absl::string_view& c : cols) c = absl::StripAsciiWhitespace(c);
  TraceJob job;
  job.line = where.line;
  TP_ASSIGN_OR_RETURN(job.id, ParseIdField(where, "job id", cols[kIdCol]));
  TP_ASSIGN_OR_RETURN(job.arrival_s, ParseSecondsField(where, "arrival time", cols[kArrivalCol]));
  TP_ASSIGN_OR_RETURN(job.duration_s, ParseSecondsField(where, "duration", cols[kDurationCol]));
  int64_t gpus = 0;
  if (!absl::SimpleAtoi(cols[kSizeCol], &gpus) || gpus < 1 || gpus > (int64_t{1} << 24)) {
    return LineError(where, absl::StrCat("field 'size': expected a GPU count in [1, 16777216], "
                                         "got '",
                                         cols[kSizeCol], "'"));
  }
  absl::StatusOr<JobSpec> spec = JobForGpuCount(gpus);
  if (!spec.ok()) return LineError(where, spec.status().message());
  job.spec = *std::move(spec);
  job.derived_from_gpus = gpus;
  return job;
}

}  // namespace

absl::StatusOr<Trace> ParseCsvTrace(absl::string_view text, absl::string_view source_name) {
  return ParseTraceLines(text, source_name, ParseCsvLine);
}

}  // namespace topoplace::sched::sim
