#include "scheduler/sim/trace_native.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "scheduler/sim/trace_fields.h"

namespace topoplace::sched::sim {
namespace {

absl::StatusOr<TraceJob> ParseNativeLine(LineRef where, absl::string_view line) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 4) {
    return LineError(where, absl::StrCat("expected 4 whitespace-separated fields (id, "
                                         "arrival_s, duration_s, job spec), got ",
                                         fields.size()));
  }
  TraceJob job;
  job.line = where.line;
  TP_ASSIGN_OR_RETURN(job.id, ParseIdField(where, "id", fields[0]));
  TP_ASSIGN_OR_RETURN(job.arrival_s, ParseSecondsField(where, "arrival_s", fields[1]));
  TP_ASSIGN_OR_RETURN(job.duration_s, ParseSecondsField(where, "duration_s", fields[2]));
  absl::StatusOr<JobSpec> spec = ParseJobSpec(fields[3]);
  if (!spec.ok()) return LineError(where, spec.status().message());
  job.spec = *std::move(spec);
  return job;
}

}  // namespace

absl::StatusOr<Trace> ParseNativeTrace(absl::string_view text, absl::string_view source_name) {
  return ParseTraceLines(text, source_name, ParseNativeLine);
}

std::string FormatNativeTrace(const Trace& trace) {
  std::string out = absl::StrCat(kNativeTraceHeader, "\n# id arrival_s duration_s job-spec\n");
  for (const TraceJob& job : trace.jobs) {
    absl::StrAppendFormat(&out, "%d %.17g %.17g %s\n", job.id, job.arrival_s, job.duration_s,
                          FormatJobSpec(job.spec));
  }
  return out;
}

}  // namespace topoplace::sched::sim
