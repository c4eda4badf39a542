#include "topology/discovery/k8s_resource_slices.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/json_depth.h"
#include "base/status_macros.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using nlohmann::json;

// One device as the pairing needs it.
struct Device {
  std::string pci;   // bus ID / PCI address: the order
  std::string root;  // pcieRoot; empty: unknown
  std::string nic;   // NICs: the RDMA device name
};

struct Node {
  std::vector<Device> gpus, nics;
  std::string origin;
};

absl::Status Bad(absl::string_view origin, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": ", what));
}

// The attribute's value of kind `kind` ("string", "bool"), or nullopt if the device lacks
// the attribute; InvalidArgument if it has another kind.
absl::StatusOr<std::optional<json>> Attribute(const json& attributes, const char* name,
                                              const char* kind, const std::string& where) {
  if (!attributes.is_object() || !attributes.contains(name)) return std::optional<json>();
  const json& value = attributes[name];
  const bool ok =
      value.is_object() && value.contains(kind) &&
      (std::string(kind) == "string" ? value[kind].is_string() : value[kind].is_boolean());
  if (!ok)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".", name, ": expected {\"", kind, "\": ...}"));
  return std::optional<json>(value[kind]);
}

absl::StatusOr<std::string> StringAttribute(const json& attributes, const char* name,
                                            const std::string& where) {
  TP_ASSIGN_OR_RETURN(std::optional<json> v, Attribute(attributes, name, "string", where));
  return v ? v->get<std::string>() : std::string();
}

// Adds `device` (of `driver`) to `node`, if it is a full GPU or an RDMA NIC.
absl::Status AddDevice(const std::string& driver, const json& device, const std::string& where,
                       Node& node) {
  if (!device.is_object() || !device.contains("name") || !device["name"].is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected a device with a name"));
  }
  const std::string name = device["name"].get<std::string>();
  const std::string at = absl::StrCat(where, " (", name, ").attributes");
  const json empty = json::object();
  const json& attributes = device.contains("attributes") ? device["attributes"] : empty;
  TP_ASSIGN_OR_RETURN(const std::string root, StringAttribute(attributes, kPcieRootAttribute, at));
  if (driver == kNvidiaGpuDriver) {
    TP_ASSIGN_OR_RETURN(const std::string type, StringAttribute(attributes, "type", at));
    if (!type.empty() ? type != "gpu" : absl::StrContains(name, "-mig-")) return absl::OkStatus();
    TP_ASSIGN_OR_RETURN(std::string bus,
                        StringAttribute(attributes, "resource.kubernetes.io/pciBusID", at));
    if (bus.empty()) {
      TP_ASSIGN_OR_RETURN(bus, StringAttribute(attributes, "pcieBusID", at));
    }
    node.gpus.push_back({bus.empty() ? name : bus, root, ""});
    return absl::OkStatus();
  }
  TP_ASSIGN_OR_RETURN(std::optional<json> rdma, Attribute(attributes, "dra.net/rdma", "bool", at));
  if (!rdma || !rdma->get<bool>()) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(const std::string rdma_device,
                      StringAttribute(attributes, "dra.net/rdmaDevice", at));
  if (rdma_device.empty()) return absl::OkStatus();  // an RDMA NIC topoplace cannot name
  TP_ASSIGN_OR_RETURN(const std::string pci, StringAttribute(attributes, "dra.net/pciAddress", at));
  node.nics.push_back({pci.empty() ? name : pci, root, rdma_device});
  return absl::OkStatus();
}

// The host fact of one node: GPUs and NICs in PCI order, GPUs paired with the NICs of
// their root (see the header).
HostFact ToHost(const std::string& name, Node& node) {
  const auto by_pci = [](const Device& a, const Device& b) { return a.pci < b.pci; };
  std::sort(node.gpus.begin(), node.gpus.end(), by_pci);
  std::sort(node.nics.begin(), node.nics.end(), by_pci);
  HostFact host;
  host.name = name;
  host.origin = node.origin;
  for (const Device& n : node.nics) host.nics.push_back(NicFact{.name = n.nic});
  std::map<std::string, std::vector<size_t>> gpus_of_root;
  std::map<std::string, std::vector<const Device*>> nics_of_root;
  for (size_t g = 0; g < node.gpus.size(); ++g) {
    if (!node.gpus[g].root.empty()) gpus_of_root[node.gpus[g].root].push_back(g);
  }
  for (const Device& n : node.nics) {
    if (!n.root.empty()) nics_of_root[n.root].push_back(&n);
  }
  std::vector<std::string> nic_of(node.gpus.size());
  for (const auto& [root, gpus] : gpus_of_root) {
    auto it = nics_of_root.find(root);
    if (it == nics_of_root.end()) continue;
    const std::vector<const Device*>& nics = it->second;
    for (size_t k = 0; k < gpus.size(); ++k)
      nic_of[gpus[k]] = nics[k * nics.size() / gpus.size()]->nic;
  }
  for (size_t g = 0; g < node.gpus.size(); ++g) {
    host.gpus.push_back(GpuFact{.index = static_cast<int32_t>(g), .nic = nic_of[g]});
  }
  return host;
}

}  // namespace

absl::StatusOr<FabricFacts> ParseK8sResourceSlices(absl::string_view text,
                                                   absl::string_view origin) {
  TP_RETURN_IF_ERROR(CheckJsonDepth(text, origin));
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Bad(origin,
               "not JSON (expected a ResourceSliceList: kubectl get resourceslices -o json)");
  }
  if (!doc.is_object() || !doc.contains("items") || !doc["items"].is_array()) {
    return Bad(origin, "expected a ResourceSliceList with an items array");
  }
  std::map<std::string, Node> nodes;  // by name: facts in name order
  const json& items = doc["items"];
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string where = absl::StrCat(origin, ": items[", i, "]");
    const json& slice = items[i];
    const json* spec = slice.is_object() && slice.contains("spec") ? &slice["spec"] : nullptr;
    if (spec == nullptr || !spec->is_object() || !spec->contains("driver") ||
        !(*spec)["driver"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": spec.driver missing"));
    }
    const std::string driver = (*spec)["driver"].get<std::string>();
    if (driver != kNvidiaGpuDriver && driver != kDranetDriver) continue;
    if (!spec->contains("nodeName")) continue;  // a pool of several nodes: no host of its own
    if (!(*spec)["nodeName"].is_string() || (*spec)["nodeName"].get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".spec.nodeName: expected a node name"));
    }
    Node& node = nodes[(*spec)["nodeName"].get<std::string>()];
    if (node.origin.empty()) node.origin = where;
    if (!spec->contains("devices")) continue;
    const json& devices = (*spec)["devices"];
    if (!devices.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".spec.devices: expected an array"));
    }
    for (size_t d = 0; d < devices.size(); ++d) {
      TP_RETURN_IF_ERROR(
          AddDevice(driver, devices[d], absl::StrCat(where, ".spec.devices[", d, "]"), node));
    }
  }
  FabricFacts facts;
  for (auto& [name, node] : nodes) {
    if (node.gpus.empty() && node.nics.empty()) continue;
    facts.hosts.push_back(ToHost(name, node));
  }
  return facts;
}

absl::StatusOr<FabricFacts> LoadK8sResourceSlices(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  return ParseK8sResourceSlices(text, path);
}

}  // namespace topoplace::discovery
