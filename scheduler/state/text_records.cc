#include "scheduler/state/text_records.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace topoplace::sched {

absl::Status ForEachRecord(absl::string_view text, absl::string_view source_name,
                           absl::FunctionRef<absl::Status(const RecordLine&)> record) {
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    RecordLine r{line_no, absl::StrCat(source_name, ":", line_no, ": "), line,
                 absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty())};
    if (absl::Status s = record(r); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace topoplace::sched
