#include "plugins/common/node_name_map.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/input_file.h"
#include "base/status_macros.h"

namespace topoplace::plugins {

absl::StatusOr<NodeNameMap> NodeNameMap::Parse(absl::string_view text, absl::string_view source) {
  NodeNameMap map;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::vector<std::string> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    auto error = [&](absl::string_view problem) {
      return absl::InvalidArgumentError(absl::StrCat(source, ":", line_number, ": ", problem));
    };
    if (fields.size() != 2) {
      return error(
          absl::StrCat("expected 'FABRIC_HOST SLURM_NODE', got ", fields.size(), " fields"));
    }
    if (!map.node_of_host_.try_emplace(fields[0], fields[1]).second) {
      return error(absl::StrCat("host '", fields[0], "' is mapped twice"));
    }
    if (!map.host_of_node_.try_emplace(fields[1], fields[0]).second) {
      return error(absl::StrCat("Slurm node '", fields[1], "' is the target of two hosts"));
    }
  }
  return map;
}

absl::StatusOr<NodeNameMap> NodeNameMap::Load(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text,
                      ReadInputFile(path, kMaxNodeNameMapBytes, "node map"));
  return Parse(text, path);
}

std::string NodeNameMap::NodeName(const std::string& host) const {
  auto it = node_of_host_.find(host);
  return it == node_of_host_.end() ? host : it->second;
}

std::string NodeNameMap::HostName(const std::string& node) const {
  auto it = host_of_node_.find(node);
  return it == host_of_node_.end() ? node : it->second;
}

}  // namespace topoplace::plugins
