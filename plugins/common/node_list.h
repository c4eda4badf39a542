// The nodes an operator's scheduler knows, to export only those (`export --nodes FILE`).
//
// Accepted, whichever the operator has at hand:
// - Slurm: `sinfo -N -h -o %N` or `scontrol show hostnames` output, or hostlist expressions
//   as slurm.conf writes them ("gpu[001-064,070],login1");
// - Kubernetes: `kubectl get nodes -o name` ("node/gpu-001") or `kubectl get nodes -o json`
//   (items[].metadata.name).
// Names are separated by white space or commas; text after '#' is a comment.
#ifndef TOPOPLACE_PLUGINS_COMMON_NODE_LIST_H_
#define TOPOPLACE_PLUGINS_COMMON_NODE_LIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::plugins {

// Most names one list may expand to; a range beyond it is a typo, not a cluster.
inline constexpr size_t kMaxNodeListNames = 1'000'000;
// Most bytes all of a list's names may take together (64 MiB: a million names of 64
// bytes), checked before a hostlist expands, so no list of any padding grows past it.
inline constexpr size_t kMaxNodeListBytes = size_t{64} << 20;

// Parses a node list; `source` names it in errors ("nodes.txt:3: ..."). InvalidArgument on
// an unbalanced or malformed range, a list of more than kMaxNodeListNames names or of
// more than kMaxNodeListBytes in all, a name that is not a host name (CheckHostName: no
// blanks, '=' or ',' to smuggle fields into a job spec), JSON without
// items[].metadata.name, or a list with no name at all. Hostlists expand without
// recursion, their size checked before any name is made.
absl::StatusOr<std::vector<std::string>> ParseNodeList(absl::string_view text,
                                                       absl::string_view source);
// Reads and parses a file; NotFound if it cannot be read.
absl::StatusOr<std::vector<std::string>> LoadNodeList(const std::string& path);

}  // namespace topoplace::plugins

#endif  // TOPOPLACE_PLUGINS_COMMON_NODE_LIST_H_
