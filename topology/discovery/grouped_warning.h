// One warning line for many objects with the same problem, so that a dump of 100k HCAs
// does not drown its reader in 100k identical lines.
#ifndef TOPOPLACE_TOPOLOGY_DISCOVERY_GROUPED_WARNING_H_
#define TOPOPLACE_TOPOLOGY_DISCOVERY_GROUPED_WARNING_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace topoplace::discovery {

// Appends "<count> <what>: a, b, c, ... (+N more)" to `warnings` listing at most
// `max_listed` items; appends nothing when `items` is empty.
void AddGroupedWarning(std::vector<std::string>& warnings, absl::string_view what,
                       const std::vector<std::string>& items, size_t max_listed = 8);

}  // namespace topoplace::discovery

#endif  // TOPOPLACE_TOPOLOGY_DISCOVERY_GROUPED_WARNING_H_
