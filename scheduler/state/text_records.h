// The line format the placement inputs share (occupancy and uplink load files): one record
// per line, fields separated by spaces or tabs, `#` starting a comment, blank lines
// skipped.
//
//   TP_RETURN_IF_ERROR(ForEachRecord(text, path, [&](const RecordLine& r) {
//     if (r.fields.size() != 2) return absl::InvalidArgumentError(r.where + "expected ...");
//     ...
//   }));
#ifndef TOPOPLACE_SCHEDULER_STATE_TEXT_RECORDS_H_
#define TOPOPLACE_SCHEDULER_STATE_TEXT_RECORDS_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace topoplace::sched {

struct RecordLine {
  int line = 0;                           // 1-based line number
  std::string where;                      // "SOURCE:LINE: ", to start a message with
  absl::string_view text;                 // the line without comment and outer blanks
  std::vector<absl::string_view> fields;  // never empty
};

// Calls `record` for every record of `text` in order; stops at and returns the first
// error it gives.
absl::Status ForEachRecord(absl::string_view text, absl::string_view source_name,
                           absl::FunctionRef<absl::Status(const RecordLine&)> record);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_TEXT_RECORDS_H_
