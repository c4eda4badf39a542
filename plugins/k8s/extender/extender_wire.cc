#include "plugins/k8s/extender/extender_wire.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/json_depth.h"
#include "base/json_string.h"

namespace topoplace::k8s {
namespace {

using json = nlohmann::json;

absl::Status WireError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("extender request: ", what));
}

// Copies a JSON object of strings; non-string values are skipped (Kubernetes never sends
// them, and one odd value should not fail the pod).
std::map<std::string, std::string> StringMap(const json& object) {
  std::map<std::string, std::string> out;
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) out.emplace(key, value.get<std::string>());
  }
  return out;
}

std::string StringField(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

absl::StatusOr<ExtenderArgs> ParseArgsJson(const json& body) {
  if (!body.is_object()) return WireError("body must be a JSON object");
  auto pod_it = body.find("Pod");
  if (pod_it == body.end() || pod_it->is_null()) return WireError("Pod missing");
  ExtenderArgs args;
  absl::StatusOr<PodInfo> pod = ParsePod(*pod_it);
  if (!pod.ok()) return pod.status();
  args.pod = *std::move(pod);

  auto names_it = body.find("NodeNames");
  if (names_it != body.end() && !names_it->is_null()) {
    if (!names_it->is_array()) return WireError("NodeNames must be an array of strings");
    args.node_names.reserve(names_it->size());
    for (const json& name : *names_it) {
      if (!name.is_string()) return WireError("NodeNames must be an array of strings");
      args.node_names.push_back(name.get<std::string>());
    }
    return args;
  }
  auto nodes_it = body.find("Nodes");
  if (nodes_it == body.end() || nodes_it->is_null()) return args;
  if (!nodes_it->is_object()) return WireError("Nodes must be a NodeList object");
  args.has_node_objects = true;
  auto items_it = nodes_it->find("items");
  if (items_it == nodes_it->end() || items_it->is_null()) {
    args.node_items = json::array();
    return args;
  }
  if (!items_it->is_array()) return WireError("Nodes.items must be an array");
  args.node_names.reserve(items_it->size());
  for (const json& node : *items_it) {
    const json* meta = node.is_object() && node.contains("metadata") ? &node["metadata"] : nullptr;
    std::string name = meta != nullptr && meta->is_object() ? StringField(*meta, "name") : "";
    if (name.empty()) return WireError("every Nodes.items entry needs metadata.name");
    args.node_names.push_back(std::move(name));
  }
  args.node_items = *items_it;
  return args;
}

// {"name":"reason",...} for the candidates whose outcome is `outcome`.
void AppendFailedMap(std::string& out, const ExtenderArgs& args, const FilterVerdict& verdict,
                     FilterVerdict::Outcome outcome) {
  out.push_back('{');
  bool first = true;
  for (const std::string& node : args.node_names) {
    const FilterVerdict::Decision& d = verdict.For(node);
    if (d.outcome != outcome) continue;
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, node);
    out.push_back(':');
    AppendJsonString(out, d.reason);
  }
  out.push_back('}');
}

// One node's victims: {"Pods": [{"UID": u}...]} (meta) or {"Pods": [<v1.Pod>...]}.
absl::StatusOr<NodeVictims> ParseNodeVictims(const json& victims, bool meta,
                                             const std::string& node) {
  const std::string where =
      absl::StrCat(meta ? "NodeNameToMetaVictims" : "NodeNameToVictims", "[", node, "]");
  if (!victims.is_object()) return WireError(absl::StrCat(where, " must be an object"));
  NodeVictims out;
  if (auto it = victims.find("NumPDBViolations"); it != victims.end() && !it->is_null()) {
    if (!it->is_number_integer()) {
      return WireError(absl::StrCat(where, ".NumPDBViolations must be an integer"));
    }
    out.pdb_violations = it->get<int64_t>();
  }
  auto pods = victims.find("Pods");
  if (pods == victims.end() || pods->is_null()) return out;
  if (!pods->is_array()) return WireError(absl::StrCat(where, ".Pods must be an array"));
  for (const json& pod : *pods) {
    std::string uid;
    if (meta) {
      uid = pod.is_object() ? StringField(pod, "UID") : "";
    } else if (pod.is_object() && pod.contains("metadata") && pod["metadata"].is_object()) {
      uid = StringField(pod["metadata"], "uid");
    }
    if (uid.empty()) {
      return WireError(absl::StrCat(where, ".Pods entries need ", meta ? "a UID" : "metadata.uid"));
    }
    out.pod_uids.push_back(std::move(uid));
  }
  return out;
}

absl::StatusOr<PreemptionArgs> ParsePreemptionJson(const json& body) {
  if (!body.is_object()) return WireError("body must be a JSON object");
  auto pod_it = body.find("Pod");
  if (pod_it == body.end() || pod_it->is_null()) return WireError("Pod missing");
  PreemptionArgs args;
  absl::StatusOr<PodInfo> pod = ParsePod(*pod_it);
  if (!pod.ok()) return pod.status();
  args.pod = *std::move(pod);
  for (const bool meta : {true, false}) {
    auto map_it = body.find(meta ? "NodeNameToMetaVictims" : "NodeNameToVictims");
    if (map_it == body.end() || map_it->is_null()) continue;
    if (!map_it->is_object()) {
      return WireError(
          absl::StrCat(meta ? "NodeNameToMetaVictims" : "NodeNameToVictims", " must be an object"));
    }
    for (const auto& [node, victims] : map_it->items()) {
      absl::StatusOr<NodeVictims> parsed = ParseNodeVictims(victims, meta, node);
      if (!parsed.ok()) return parsed.status();
      args.victims[node] = *std::move(parsed);
    }
    break;
  }
  return args;
}

// Parses `body` (depth-checked) and hands it to `parse`, turning JSON errors into
// InvalidArgument.
template <typename Parse>
auto ParseBody(absl::string_view body, Parse parse) -> decltype(parse(json())) {
  if (absl::Status deep = CheckJsonDepth(body, "request"); !deep.ok()) {
    return WireError(deep.message());
  }
  json parsed = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return WireError("malformed JSON");
  try {
    return parse(parsed);
  } catch (const json::exception& e) {  // defensive: accessors above check types first
    return WireError(e.what());
  }
}

}  // namespace

absl::StatusOr<PodInfo> ParsePod(const json& pod) {
  if (!pod.is_object()) return WireError("Pod must be an object");
  auto meta_it = pod.find("metadata");
  if (meta_it == pod.end() || !meta_it->is_object()) return WireError("Pod.metadata missing");
  const json& meta = *meta_it;
  PodInfo info;
  info.name = StringField(meta, "name");
  info.namespace_name = StringField(meta, "namespace");
  if (info.namespace_name.empty()) info.namespace_name = "default";
  info.uid = StringField(meta, "uid");
  if (auto it = meta.find("annotations"); it != meta.end()) info.annotations = StringMap(*it);
  if (auto it = meta.find("labels"); it != meta.end()) info.labels = StringMap(*it);
  if (auto it = meta.find("ownerReferences"); it != meta.end() && it->is_array()) {
    for (const json& owner : *it) {
      if (!owner.is_object()) continue;
      auto controller = owner.find("controller");
      if (controller != owner.end() && controller->is_boolean() && controller->get<bool>()) {
        info.controller_uid = StringField(owner, "uid");
        info.controller_api_version = StringField(owner, "apiVersion");
        info.controller_kind = StringField(owner, "kind");
        info.controller_name = StringField(owner, "name");
      }
    }
  }
  if (auto spec = pod.find("spec"); spec != pod.end() && spec->is_object()) {
    if (auto it = spec->find("priority"); it != spec->end() && !it->is_null()) {
      if (!it->is_number_integer()) return WireError("Pod.spec.priority must be an integer");
      info.priority = it->get<int64_t>();
    }
    if (auto it = spec->find("activeDeadlineSeconds"); it != spec->end() && !it->is_null()) {
      if (!it->is_number_integer() || it->get<int64_t>() < 1) {
        return WireError("Pod.spec.activeDeadlineSeconds must be a positive integer");
      }
      info.active_deadline_seconds = it->get<int64_t>();
    }
  }
  return info;
}

absl::StatusOr<ExtenderArgs> ParseExtenderArgs(absl::string_view body) {
  return ParseBody(body, ParseArgsJson);
}

absl::StatusOr<PreemptionArgs> ParsePreemptionArgs(absl::string_view body) {
  return ParseBody(body, ParsePreemptionJson);
}

std::string EncodePreemptionResult(const VictimsByNode& victims) {
  json nodes = json::object();
  for (const auto& [node, v] : victims) {
    json pods = json::array();
    for (const std::string& uid : v.pod_uids) pods.push_back({{"UID", uid}});
    nodes[node] = {{"Pods", std::move(pods)}, {"NumPDBViolations", v.pdb_violations}};
  }
  return json{{"NodeNameToMetaVictims", std::move(nodes)}}.dump(-1, ' ', false,
                                                                json::error_handler_t::replace);
}

std::string EncodeFilterResult(const ExtenderArgs& args, const FilterVerdict& verdict) {
  using Outcome = FilterVerdict::Outcome;
  std::string out;
  out.reserve(64 + 48 * args.node_names.size());
  if (args.has_node_objects) {
    json items = json::array();
    for (size_t i = 0; i < args.node_names.size(); ++i) {
      if (verdict.For(args.node_names[i]).outcome == Outcome::kPass) {
        items.push_back(args.node_items[i]);
      }
    }
    out += "{\"Nodes\":{\"metadata\":{},\"items\":";
    out += items.dump(-1, ' ', false, json::error_handler_t::replace);
    out += "},\"NodeNames\":null";
  } else {
    out += "{\"Nodes\":null,\"NodeNames\":[";
    bool first = true;
    for (const std::string& node : args.node_names) {
      if (verdict.For(node).outcome != Outcome::kPass) continue;
      if (!first) out.push_back(',');
      first = false;
      AppendJsonString(out, node);
    }
    out += "]";
  }
  out += ",\"FailedNodes\":";
  AppendFailedMap(out, args, verdict, Outcome::kFail);
  out += ",\"FailedAndUnresolvableNodes\":";
  AppendFailedMap(out, args, verdict, Outcome::kUnresolvable);
  out += ",\"Error\":";
  AppendJsonString(out, verdict.error);
  out += "}";
  return out;
}

std::string EncodeFilterError(absl::string_view error) {
  json out = {{"Nodes", nullptr},
              {"NodeNames", nullptr},
              {"FailedNodes", json::object()},
              {"FailedAndUnresolvableNodes", json::object()},
              {"Error", std::string(error)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string EncodeHostPriorities(const std::vector<HostScore>& scores) {
  std::string out = "[";
  out.reserve(32 * scores.size() + 2);
  for (size_t i = 0; i < scores.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += "{\"Host\":";
    AppendJsonString(out, scores[i].host);
    absl::StrAppend(&out, ",\"Score\":", std::clamp(scores[i].score, 0, kMaxExtenderScore), "}");
  }
  out += "]";
  return out;
}

}  // namespace topoplace::k8s
