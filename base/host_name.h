// What a host name may be, wherever one enters: fabric files, agent reports, job specs'
// host lists, Slurm and Kubernetes node lists. A name that passes can be carried by every
// consumer (a spec's comma-separated list, a hostlist expression, a label value, a
// terminal) without being read as something else.
#ifndef TOPOPLACE_BASE_HOST_NAME_H_
#define TOPOPLACE_BASE_HOST_NAME_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace topoplace {

inline constexpr size_t kMaxHostNameBytes = 256;

// InvalidArgument("<field>: ...") unless `name` is 1 to kMaxHostNameBytes of letters,
// digits, '.', '-' and '_', starting with a letter or digit (RFC 1123 labels, plus the '_'
// Slurm node names allow). Rules out control characters, '/', blanks, '=' and ',' (which
// would start another field of a job spec) and shell or terminal escapes.
absl::Status CheckHostName(absl::string_view field, absl::string_view name);

}  // namespace topoplace

#endif  // TOPOPLACE_BASE_HOST_NAME_H_
