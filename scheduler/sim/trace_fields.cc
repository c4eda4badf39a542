#include "scheduler/sim/trace_fields.h"

#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace topoplace::sched::sim {

absl::Status LineError(LineRef where, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(where.source, ":", where.line, ": ", message));
}

namespace {
absl::Status FieldError(LineRef where, absl::string_view field, absl::string_view expected,
                        absl::string_view value) {
  return LineError(where,
                   absl::StrCat("field '", field, "': expected ", expected, ", got '", value, "'"));
}
}  // namespace

absl::StatusOr<int64_t> ParseIdField(LineRef where, absl::string_view field,
                                     absl::string_view value) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(value, &id) || id < 0) {
    return FieldError(where, field, "an integer >= 0", value);
  }
  return id;
}

absl::StatusOr<double> ParseSecondsField(LineRef where, absl::string_view field,
                                         absl::string_view value) {
  double seconds = 0;
  if (!absl::SimpleAtod(value, &seconds) || !std::isfinite(seconds) || seconds < 0) {
    return FieldError(where, field, "a finite number of seconds >= 0", value);
  }
  return seconds;
}

absl::StatusOr<Trace> ParseTraceLines(
    absl::string_view text, absl::string_view source_name,
    const std::function<absl::StatusOr<TraceJob>(LineRef, absl::string_view)>& parse_line) {
  Trace trace;
  trace.source = std::string(source_name);
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    absl::StatusOr<TraceJob> job = parse_line({source_name, line_no}, line);
    if (!job.ok()) return job.status();
    trace.jobs.push_back(*std::move(job));
  }
  SortByArrival(trace);
  return trace;
}

}  // namespace topoplace::sched::sim
