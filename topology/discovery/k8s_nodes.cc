#include "topology/discovery/k8s_nodes.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using nlohmann::json;

absl::Status Bad(absl::string_view origin, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", what));
}

// "<ClusterUUID>.<CliqueId>": two non-empty parts around the last '.', the clique a number.
bool IsClique(const std::string& value) {
  const size_t dot = value.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == value.size()) return false;
  for (size_t i = dot + 1; i < value.size(); ++i) {
    if (value[i] < '0' || value[i] > '9') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<FabricFacts> ParseK8sNodeList(absl::string_view text, absl::string_view origin) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return Bad(origin, "not JSON (expected a NodeList: kubectl get nodes -o json)");
  if (!doc.is_object() || !doc.contains("items") || !doc["items"].is_array()) {
    return Bad(origin, "expected a NodeList with an items array (kubectl get nodes -o json)");
  }
  FabricFacts facts;
  const json& items = doc["items"];
  for (size_t i = 0; i < items.size(); ++i) {
    const json& node = items[i];
    const std::string where = absl::StrCat("items[", i, "]");
    const json* meta = node.is_object() && node.contains("metadata") ? &node["metadata"] : nullptr;
    if (meta == nullptr || !meta->is_object() || !meta->contains("name") ||
        !(*meta)["name"].is_string() || (*meta)["name"].get<std::string>().empty()) {
      return Bad(origin, absl::StrCat(where, ": metadata.name missing"));
    }
    const std::string name = (*meta)["name"].get<std::string>();
    if (!meta->contains("labels")) continue;
    const json& labels = (*meta)["labels"];
    if (!labels.is_object())
      return Bad(origin, absl::StrCat("node ", name, ": labels is not an object"));
    if (!labels.contains(kCliqueLabel)) continue;
    const json& clique = labels[kCliqueLabel];
    if (!clique.is_string() || !IsClique(clique.get<std::string>())) {
      return Bad(origin, absl::StrCat("node ", name, ": label ", kCliqueLabel, "=", clique.dump(),
                                      ", expected <ClusterUUID>.<CliqueId>"));
    }
    HostFact host;
    host.name = name;
    host.nvlink_domain = clique.get<std::string>();
    host.origin = absl::StrCat(origin, " ", where);
    facts.hosts.push_back(std::move(host));
  }
  return facts;
}

absl::StatusOr<FabricFacts> LoadK8sNodeList(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  return ParseK8sNodeList(text, path);
}

}  // namespace topoplace::discovery
