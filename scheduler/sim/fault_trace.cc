#include "scheduler/sim/fault_trace.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "scheduler/sim/trace_fields.h"
#include "topology/discovery/read_file.h"

namespace topoplace::sched::sim {
namespace {

absl::StatusOr<FaultEvent> ParseFaultLine(LineRef where, absl::string_view line,
                                          const Fabric& fabric) {
  const std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 4 && fields.size() != 5) {
    return LineError(where, absl::StrCat("expected 4 or 5 whitespace-separated fields (time_s, "
                                         "element, kind, duration_s [, capacity]), got ",
                                         fields.size()));
  }
  FaultEvent event;
  event.line = where.line;
  TP_ASSIGN_OR_RETURN(event.time_s, ParseSecondsField(where, "time_s", fields[0]));
  absl::StatusOr<FaultElement> element = ParseFaultElement(fabric, fields[1]);
  if (!element.ok()) {
    return LineError(where, absl::StrCat("field 'element': ", element.status().message()));
  }
  event.element = *element;
  if (fields[2] == "fail") {
    event.kind = FaultKind::kFail;
  } else if (fields[2] == "degrade") {
    event.kind = FaultKind::kDegrade;
  } else {
    return LineError(where,
                     absl::StrCat("field 'kind': expected fail or degrade, got '", fields[2], "'"));
  }
  TP_ASSIGN_OR_RETURN(event.duration_s, ParseSecondsField(where, "duration_s", fields[3]));
  if (!(event.duration_s > 0)) {
    return LineError(where, "field 'duration_s': expected more than 0 seconds, got 0");
  }
  const bool degrade = event.kind == FaultKind::kDegrade;
  if (degrade && event.element.type != FaultElement::Type::kLink) {
    return LineError(where, absl::StrCat("kind 'degrade': only links degrade, got '", fields[1],
                                         "' (use fail for hosts and switches)"));
  }
  if (degrade != (fields.size() == 5)) {
    return LineError(where, degrade ? "kind 'degrade': expected a 5th field, the capacity left"
                                    : "kind 'fail': expected no 5th field (capacity)");
  }
  if (degrade) {
    if (!absl::SimpleAtod(fields[4], &event.capacity) ||
        !(event.capacity > 0 && event.capacity < 1)) {
      return LineError(where, absl::StrCat("field 'capacity': expected a share in (0, 1), got '",
                                           fields[4], "'"));
    }
  }
  return event;
}

}  // namespace

absl::StatusOr<FaultSchedule> ParseFaultTrace(absl::string_view text, absl::string_view source_name,
                                              const Fabric& fabric) {
  FaultSchedule schedule;
  schedule.source = std::string(source_name);
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line_no == 1) {
      if (line != kFaultTraceHeader) {
        return LineError({source_name, 1}, absl::StrCat("expected the header '", kFaultTraceHeader,
                                                        "', got '", line.substr(0, 60), "'"));
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    TP_ASSIGN_OR_RETURN(FaultEvent event, ParseFaultLine({source_name, line_no}, line, fabric));
    schedule.events.push_back(event);
  }
  std::stable_sort(schedule.events.begin(), schedule.events.end(),
                   [](const FaultEvent& a, const FaultEvent& b) { return a.time_s < b.time_s; });
  return schedule;
}

absl::StatusOr<FaultSchedule> LoadFaultTraceFile(const std::string& path, const Fabric& fabric) {
  absl::StatusOr<std::string> text = discovery::ReadWholeFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat("cannot read fault trace '", path,
                                                           "': ", text.status().message()));
  }
  return ParseFaultTrace(*text, path, fabric);
}

std::string FormatFaultTrace(const FaultSchedule& schedule, const Fabric& fabric) {
  std::string out =
      absl::StrCat(kFaultTraceHeader, "\n# time_s element kind duration_s [capacity]\n");
  for (const FaultEvent& e : schedule.events) {
    absl::StrAppendFormat(&out, "%.17g %s %s %.17g", e.time_s, FaultElementName(fabric, e.element),
                          FaultKindName(e.kind), e.duration_s);
    if (e.kind == FaultKind::kDegrade) absl::StrAppendFormat(&out, " %.17g", e.capacity);
    out += "\n";
  }
  return out;
}

}  // namespace topoplace::sched::sim
