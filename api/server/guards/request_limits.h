// Field-level input limits shared by the services: a request field that is missing or too
// long is INVALID_ARGUMENT naming the field, before any work is done.
#ifndef TOPOPLACE_API_SERVER_GUARDS_REQUEST_LIMITS_H_
#define TOPOPLACE_API_SERVER_GUARDS_REQUEST_LIMITS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/host_name.h"  // CheckHostName, for the services' host fields

namespace topoplace::server {

inline constexpr size_t kMaxJobSpecBytes = 4096;
inline constexpr size_t kMaxNameBytes = kMaxHostNameBytes;  // ids, host names, policies
inline constexpr int kMaxReportEntries = 10000;

// InvalidArgument("<field>: ...") if `value` is longer than `max_bytes`, or empty when
// `required`.
absl::Status CheckField(absl::string_view field, absl::string_view value, size_t max_bytes,
                        bool required);

// CheckField, and no control characters (CheckPrintable): for ids, specs and names that end
// up in tables, logs and terminals.
absl::Status CheckText(absl::string_view field, absl::string_view value, size_t max_bytes,
                       bool required);

// InvalidArgument("<field>: ...") if `value` holds an ASCII control character (below 0x20,
// or 0x7f): text that ends up in logs, tables and terminals.
absl::Status CheckPrintable(absl::string_view field, absl::string_view value);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_REQUEST_LIMITS_H_
