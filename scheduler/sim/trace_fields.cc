#include "scheduler/sim/trace_fields.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace topoplace::sched::sim {

absl::Status LineError(LineRef where, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(where.source, ":", where.line, ": ", message));
}

namespace {
absl::Status FieldError(LineRef where, absl::string_view field, absl::string_view expected,
                        absl::string_view value) {
  return LineError(where, absl::StrCat("field '", field, "': expected ", expected, ", got '",
                                       value, "'"));
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

}  // namespace topoplace::sched::sim
