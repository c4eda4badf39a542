#include "topology/discovery/lldp.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/json_depth.h"
#include "base/status_macros.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using nlohmann::json;

// Entries of a field that `-f json0` writes as an array and `-f json` as a single value.
std::vector<const json*> Items(const json& field) {
  std::vector<const json*> items;
  if (field.is_array()) {
    for (const json& item : field) items.push_back(&item);
  } else if (!field.is_null()) {
    items.push_back(&field);
  }
  return items;
}

const json* Member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// A scalar written as "x", {"value": "x"} or [{"value": "x"}]; empty if absent.
std::string Text(const json* field) {
  if (field == nullptr) return "";
  for (const json* item : Items(*field)) {
    if (item->is_string()) return item->get<std::string>();
    if (const json* value = Member(*item, "value"); value != nullptr && value->is_string()) {
      return value->get<std::string>();
    }
  }
  return "";
}

// A named entry: json0 writes {"name": "eth0", ...}, json writes {"eth0": {...}}.
// Returns the body and sets `name`; nullptr if the entry is not an object.
const json* Unwrap(const json& entry, std::string& name) {
  if (!entry.is_object()) return nullptr;
  if (const json* n = Member(entry, "name"); n != nullptr) {
    name = Text(n);
    return &entry;
  }
  if (entry.size() == 1 && entry.begin().value().is_object() && entry.begin().key() != "id") {
    name = entry.begin().key();
    return &entry.begin().value();
  }
  name.clear();
  return &entry;
}

NodeRole RoleOf(const json& chassis) {
  const json* caps = Member(chassis, "capability");
  if (caps == nullptr) return NodeRole::kUnknown;
  bool station = false;
  for (const json* cap : Items(*caps)) {
    const std::string type = Text(Member(*cap, "type"));
    const json* enabled = Member(*cap, "enabled");
    if (enabled == nullptr || !enabled->is_boolean() || !enabled->get<bool>()) continue;
    if (type == "Bridge" || type == "Router") return NodeRole::kSwitch;
    if (type == "Station") station = true;
  }
  return station ? NodeRole::kHost : NodeRole::kUnknown;
}

// "100GbaseCR4 - ..." -> 100; "1000BaseTFD" -> 1; 0 if not a rate.
double MauSpeedGbps(const std::string& mau) {
  size_t digits = 0;
  while (digits < mau.size() && std::isdigit(static_cast<unsigned char>(mau[digits]))) ++digits;
  if (digits == 0 || digits > 6 || digits >= mau.size()) return 0;
  double value = 0;
  std::from_chars(mau.data(), mau.data() + digits, value);
  const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(mau[digits])));
  if (unit == 'G') return value;
  if (absl::StartsWithIgnoreCase(absl::string_view(mau).substr(digits), "base")) {
    return value / 1000;  // plain "1000BaseT" is in Mb/s
  }
  return 0;
}

absl::Status ShapeError(absl::string_view source, absl::string_view field,
                        absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": field ", field, ": expected ", expected));
}

// The interfaces of one "lldp" block as (local port, body) pairs. json0 writes
// [{"name": "eth0", ...}]; json writes {"eth0": {...}} or [{"swp1": {...}}, ...].
std::vector<std::pair<std::string, const json*>> Interfaces(const json& field) {
  std::vector<std::pair<std::string, const json*>> entries;
  if (field.is_object() && Member(field, "name") == nullptr) {
    for (auto it = field.begin(); it != field.end(); ++it) {
      entries.emplace_back(it.key(), it.value().is_object() ? &it.value() : nullptr);
    }
    return entries;
  }
  for (const json* item : Items(field)) {
    std::string name;
    const json* body = Unwrap(*item, name);
    entries.emplace_back(std::move(name), body);
  }
  return entries;
}

absl::StatusOr<LldpNeighbor> ReadNeighbor(const std::string& local_port, const json* body,
                                          absl::string_view source, const std::string& field) {
  if (body == nullptr || local_port.empty()) {
    return ShapeError(source, field, "an interface object with a name");
  }
  const json* chassis_field = Member(*body, "chassis");
  const json* port_field = Member(*body, "port");
  if (chassis_field == nullptr || port_field == nullptr) {
    return ShapeError(source, field, "'chassis' and 'port' members");
  }
  const std::vector<const json*> chassis_items = Items(*chassis_field);
  const std::vector<const json*> port_items = Items(*port_field);
  if (chassis_items.empty() || port_items.empty() || !port_items[0]->is_object()) {
    return ShapeError(source, field + ".chassis/port", "objects");
  }
  LldpNeighbor n;
  n.local_port = local_port;
  const json* chassis = Unwrap(*chassis_items[0], n.system_name);
  if (chassis == nullptr) return ShapeError(source, field + ".chassis", "an object");
  if (n.system_name.empty()) {
    if (const json* id = Member(*chassis, "id"); id != nullptr) {
      for (const json* item : Items(*id)) n.system_name = Text(Member(*item, "value"));
    }
  }
  const json& port = *port_items[0];
  std::string id_type, id_value;
  if (const json* id = Member(port, "id"); id != nullptr) {
    for (const json* item : Items(*id)) {
      id_type = Text(Member(*item, "type"));
      id_value = Text(Member(*item, "value"));
    }
  }
  // Hosts running lldpd with "portidsubtype ifname" send their interface name as the id;
  // otherwise (a MAC) the description usually carries it.
  const std::string descr = Text(Member(port, "descr"));
  n.port = (id_type == "ifname" || id_type == "local" || descr.empty()) ? id_value : descr;
  n.role = RoleOf(*chassis);
  if (const json* autoneg = Member(port, "auto-negotiation"); autoneg != nullptr) {
    for (const json* item : Items(*autoneg)) {
      n.speed_gbps = MauSpeedGbps(Text(Member(*item, "current")));
    }
  }
  n.origin = absl::StrCat(source, ": ", field);
  if (n.system_name.empty() || n.port.empty()) {
    return ShapeError(source, field, "a neighbor chassis name or id and a port id");
  }
  return n;
}

absl::Status ReadNeighbors(const json& lldp, absl::string_view source, LldpView& view) {
  for (const json* block : Items(lldp)) {
    if (!block->is_object()) return ShapeError(source, "lldp", "an object or array of objects");
    const json* interfaces = Member(*block, "interface");
    if (interfaces == nullptr) continue;  // no neighbors at all
    const auto entries = Interfaces(*interfaces);
    for (size_t i = 0; i < entries.size(); ++i) {
      TP_ASSIGN_OR_RETURN(LldpNeighbor n, ReadNeighbor(entries[i].first, entries[i].second, source,
                                                       absl::StrCat("lldp.interface[", i, "]")));
      view.neighbors.push_back(std::move(n));
    }
  }
  return absl::OkStatus();
}

void ReadLocalChassis(const json& local, LldpView& view) {
  for (const json* block : Items(local)) {
    const json* chassis_field = Member(*block, "chassis");
    if (chassis_field == nullptr) continue;
    for (const json* entry : Items(*chassis_field)) {
      std::string name;
      const json* chassis = Unwrap(*entry, name);
      if (chassis == nullptr || name.empty()) continue;
      view.local_name = name;
      view.local_role = RoleOf(*chassis);
    }
  }
}

std::string NameFromFile(const std::filesystem::path& path) {
  std::string stem = path.filename().string();
  stem = stem.substr(0, stem.find('.'));
  for (absl::string_view prefix : {"lldp-neighbors-", "lldp-"}) {
    if (absl::StartsWith(stem, prefix)) return stem.substr(prefix.size());
  }
  return stem;
}

}  // namespace

absl::StatusOr<LldpView> ParseLldpNeighbors(absl::string_view text, absl::string_view source_name,
                                            absl::string_view local_name) {
  TP_RETURN_IF_ERROR(CheckJsonDepth(text, source_name));
  LldpView view;
  view.local_name = std::string(local_name);
  std::istringstream in{std::string(text)};
  int documents = 0;
  while ((in >> std::ws) && !in.eof()) {
    json doc;
    try {
      in >> doc;
    } catch (const json::exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": not lldpcli JSON output: ", e.what()));
    }
    ++documents;
    if (!doc.is_object()) return ShapeError(source_name, "(top level)", "an object");
    if (const json* local = Member(doc, "local-chassis"); local != nullptr) {
      ReadLocalChassis(*local, view);
    }
    if (const json* lldp = Member(doc, "lldp"); lldp != nullptr) {
      TP_RETURN_IF_ERROR(ReadNeighbors(*lldp, source_name, view));
    } else if (Member(doc, "local-chassis") == nullptr) {
      return ShapeError(source_name, "(top level)", "an 'lldp' or 'local-chassis' member");
    }
  }
  if (documents == 0) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": empty; expected lldpcli JSON"));
  }
  if (view.local_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name,
                     ": cannot tell whose neighbors these are: no local-chassis document and "
                     "no local name given"));
  }
  return view;
}

FabricFacts LldpViewToFacts(const LldpView& view) {
  FabricFacts facts;
  if (view.local_role == NodeRole::kSwitch) {
    SwitchFact& sw = facts.switches.emplace_back();
    sw.name = view.local_name;
  }
  for (const LldpNeighbor& n : view.neighbors) {
    LinkFact& link = facts.links.emplace_back();
    link.a = PortRef{view.local_name, n.local_port, view.local_role};
    link.b = PortRef{n.system_name, n.port, n.role};
    link.speed_gbps = n.speed_gbps;
    link.origin = n.origin;
  }
  return facts;
}

absl::StatusOr<FabricFacts> LoadLldpPath(const std::string& path) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else if (std::filesystem::exists(path, ec)) {
    files.emplace_back(path);
  } else {
    return absl::NotFoundError(absl::StrCat(path, ": no such LLDP file or directory"));
  }
  FabricFacts all;
  for (const std::filesystem::path& file : files) {
    TP_ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(file.string()));
    TP_ASSIGN_OR_RETURN(LldpView view, ParseLldpNeighbors(text, file.string(), NameFromFile(file)));
    FabricFacts facts = LldpViewToFacts(view);
    for (auto& s : facts.switches) all.switches.push_back(std::move(s));
    for (auto& l : facts.links) all.links.push_back(std::move(l));
  }
  return all;
}

}  // namespace topoplace::discovery
