// A guard for JSON from outside: nlohmann::json builds and destroys nested values
// recursively, so a body of 60,000 '[' (a 120 KB request) overflows the stack and kills
// the process. Every parser of untrusted JSON checks the nesting first, in one linear scan
// that allocates nothing.
#ifndef TOPOPLACE_BASE_JSON_DEPTH_H_
#define TOPOPLACE_BASE_JSON_DEPTH_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace topoplace {

// Deepest nesting of arrays and objects accepted from outside. Our deepest legitimate
// input is a Kubernetes object in an extender request (managedFields' fieldsV1 trees reach
// about 20 levels); 128 leaves room and keeps recursion a few KB of stack.
inline constexpr int kMaxJsonDepth = 128;

// InvalidArgument("<what>: JSON nested deeper than N levels at byte B") when `text` opens
// more than `max_depth` arrays or objects at once (brackets inside strings do not count).
// Says nothing about whether `text` is valid JSON otherwise.
absl::Status CheckJsonDepth(absl::string_view text, absl::string_view what,
                            int max_depth = kMaxJsonDepth);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_JSON_DEPTH_H_
