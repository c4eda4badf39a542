#include "topology/discovery/agent_report.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/json_depth.h"
#include "base/status_macros.h"
#include "topology/discovery/grouped_warning.h"
#include "topology/discovery/read_file.h"

namespace topoplace::discovery {
namespace {

using nlohmann::json;

// Typed, exception-free access to one JSON object, with errors that name the field.
class Fields {
 public:
  Fields(const json& object, absl::string_view source, std::string path)
      : object_(object), source_(source), path_(std::move(path)) {}

  absl::Status Expect(bool ok, absl::string_view key, absl::string_view what) const {
    if (ok) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        source_, ": field ", path_, path_.empty() ? "" : ".", key, ": expected ", what));
  }
  absl::Status String(const char* key, std::string& out, bool required = false) const {
    auto it = object_.find(key);
    if (it == object_.end()) return Expect(!required, key, "a string (required)");
    TP_RETURN_IF_ERROR(Expect(it->is_string(), key, "a string"));
    out = it->get<std::string>();
    return absl::OkStatus();
  }
  absl::Status Number(const char* key, double& out) const {
    auto it = object_.find(key);
    if (it == object_.end()) return absl::OkStatus();
    TP_RETURN_IF_ERROR(Expect(it->is_number(), key, "a number"));
    out = it->get<double>();
    return absl::OkStatus();
  }
  absl::Status Integer(const char* key, int32_t& out) const {
    auto it = object_.find(key);
    if (it == object_.end()) return absl::OkStatus();
    TP_RETURN_IF_ERROR(Expect(
        it->is_number_integer() && it->get<int64_t>() >= -1 && it->get<int64_t>() < (1 << 20), key,
        "an integer in -1..1048575"));
    out = it->get<int32_t>();
    return absl::OkStatus();
  }
  // An optional GUID string (see ParseGuid).
  absl::Status Guid(const char* key, uint64_t& out) const {
    std::string text;
    TP_RETURN_IF_ERROR(String(key, text));
    if (text.empty()) return absl::OkStatus();
    std::optional<uint64_t> guid = ParseGuid(text);
    TP_RETURN_IF_ERROR(Expect(guid.has_value(), key,
                              "a GUID such as \"0c42:a103:0004:5678\" or \"0x0c42a10300045678\""));
    out = *guid;
    return absl::OkStatus();
  }
  // Calls `each(Fields)` for every object of the array `key` (absent: none).
  template <typename Fn>
  absl::Status Array(const char* key, Fn each) const {
    auto it = object_.find(key);
    if (it == object_.end()) return absl::OkStatus();
    TP_RETURN_IF_ERROR(Expect(it->is_array(), key, "an array"));
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string path = absl::StrCat(path_, path_.empty() ? "" : ".", key, "[", i, "]");
      if (!(*it)[i].is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat(source_, ": field ", path, ": expected an object"));
      }
      TP_RETURN_IF_ERROR(each(Fields((*it)[i], source_, path)));
    }
    return absl::OkStatus();
  }
  const std::string& path() const { return path_; }

 private:
  const json& object_;
  absl::string_view source_;
  std::string path_;
};

// One entry of "nics", with its "gids".
absl::Status ReadNic(const Fields& f, AgentNic& nic) {
  TP_RETURN_IF_ERROR(f.String("name", nic.name, /*required=*/true));
  TP_RETURN_IF_ERROR(f.Expect(!nic.name.empty() && nic.name.find('/') == std::string::npos, "name",
                              "a non-empty name without '/'"));
  TP_RETURN_IF_ERROR(f.Number("speed_gbps", nic.speed_gbps));
  TP_RETURN_IF_ERROR(f.String("state", nic.state));
  TP_RETURN_IF_ERROR(f.String("pci", nic.pci));
  TP_RETURN_IF_ERROR(f.Integer("numa", nic.numa));
  TP_RETURN_IF_ERROR(f.String("rdma_device", nic.rdma_device));
  TP_RETURN_IF_ERROR(f.String("link_layer", nic.link_layer));
  TP_RETURN_IF_ERROR(f.Guid("node_guid", nic.node_guid));
  TP_RETURN_IF_ERROR(f.Guid("sys_image_guid", nic.sys_image_guid));
  TP_RETURN_IF_ERROR(f.Guid("port_guid", nic.port_guid));
  return f.Array("gids", [&nic](const Fields& g) -> absl::Status {
    AgentGid& gid = nic.gids.emplace_back();
    TP_RETURN_IF_ERROR(g.Integer("index", gid.index));
    TP_RETURN_IF_ERROR(g.Expect(gid.index >= 0, "index", "a GID index >= 0"));
    TP_RETURN_IF_ERROR(g.String("gid", gid.gid, /*required=*/true));
    TP_RETURN_IF_ERROR(g.String("type", gid.type));
    TP_RETURN_IF_ERROR(g.Expect(
        gid.type.empty() || gid.type == "IB" || gid.type == "RoCE v1" || gid.type == "RoCE v2",
        "type", "\"IB\", \"RoCE v1\", \"RoCE v2\" or empty"));
    return g.String("netdev", gid.netdev);
  });
}

}  // namespace

std::string FormatGuid(uint64_t guid) {
  return absl::StrFormat("%04x:%04x:%04x:%04x", guid >> 48, (guid >> 32) & 0xffff,
                         (guid >> 16) & 0xffff, guid & 0xffff);
}

std::optional<uint64_t> ParseGuid(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  std::string digits;
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) {
    digits = std::string(text.substr(2));
  } else {
    const std::vector<absl::string_view> groups = absl::StrSplit(text, ':');
    if (groups.size() != 4) return std::nullopt;
    for (absl::string_view g : groups) {
      if (g.size() != 4) return std::nullopt;
      absl::StrAppend(&digits, g);
    }
  }
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

uint64_t ReportSystemGuid(const AgentReport& report) {
  for (const AgentNic& nic : report.nics) {
    if (nic.sys_image_guid != 0) return nic.sys_image_guid;
  }
  return 0;
}

void AddReportedHcas(const AgentReport& report, absl::flat_hash_map<uint64_t, ReportedHca>& hcas) {
  for (const AgentNic& nic : report.nics) {
    const ReportedHca hca{.host = report.host,
                          .device = nic.rdma_device.empty() ? nic.name : nic.rdma_device};
    for (uint64_t guid : {nic.node_guid, nic.port_guid}) {
      if (guid != 0) hcas.try_emplace(guid, hca);
    }
  }
}

std::string AgentReportToJson(const AgentReport& report) {
  json j = json::object();
  j["format"] = std::string(kAgentReportFormat);
  j["host"] = report.host;
  j["nvlink_domain"] = report.nvlink_domain;
  if (!report.gpu_model.empty()) j["gpu_model"] = report.gpu_model;
  j["nics"] = json::array();
  for (const AgentNic& nic : report.nics) {
    json n = {{"name", nic.name},
              {"speed_gbps", nic.speed_gbps},
              {"state", nic.state},
              {"pci", nic.pci},
              {"numa", nic.numa},
              {"rdma_device", nic.rdma_device},
              {"link_layer", nic.link_layer}};
    for (const auto& [key, guid] :
         {std::pair("node_guid", nic.node_guid), std::pair("sys_image_guid", nic.sys_image_guid),
          std::pair("port_guid", nic.port_guid)}) {
      if (guid != 0) n[key] = FormatGuid(guid);
    }
    if (!nic.gids.empty()) {
      n["gids"] = json::array();
      for (const AgentGid& g : nic.gids) {
        n["gids"].push_back(
            {{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}});
      }
    }
    j["nics"].push_back(std::move(n));
  }
  j["gpus"] = json::array();
  for (const AgentGpu& gpu : report.gpus) {
    j["gpus"].push_back(
        {{"index", gpu.index}, {"pci", gpu.pci}, {"numa", gpu.numa}, {"nic", gpu.nic}});
  }
  j["lldp"] = json::array();
  for (const LldpNeighbor& n : report.lldp) {
    j["lldp"].push_back({{"local_port", n.local_port},
                         {"system_name", n.system_name},
                         {"port", n.port},
                         {"role", std::string(NodeRoleName(n.role))},
                         {"speed_gbps", n.speed_gbps}});
  }
  j["warnings"] = report.warnings;
  return j.dump(2) + "\n";
}

absl::StatusOr<AgentReport> ParseAgentReport(absl::string_view text,
                                             absl::string_view source_name) {
  TP_RETURN_IF_ERROR(CheckJsonDepth(text, source_name));
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": not valid JSON"));
  }
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": expected a JSON object (an agent report)"));
  }
  AgentReport report;
  const Fields top(j, source_name, "");
  std::string format;
  TP_RETURN_IF_ERROR(top.String("format", format, /*required=*/true));
  TP_RETURN_IF_ERROR(top.Expect(format == kAgentReportFormat, "format",
                                absl::StrCat("\"", kAgentReportFormat, "\"")));
  TP_RETURN_IF_ERROR(top.String("host", report.host, /*required=*/true));
  TP_RETURN_IF_ERROR(top.Expect(!report.host.empty(), "host", "a non-empty host name"));
  TP_RETURN_IF_ERROR(top.String("nvlink_domain", report.nvlink_domain));
  TP_RETURN_IF_ERROR(top.String("gpu_model", report.gpu_model));
  TP_RETURN_IF_ERROR(top.Array(
      "nics", [&report](const Fields& f) { return ReadNic(f, report.nics.emplace_back()); }));
  TP_RETURN_IF_ERROR(top.Array("gpus", [&report](const Fields& f) -> absl::Status {
    AgentGpu& gpu = report.gpus.emplace_back();
    TP_RETURN_IF_ERROR(f.Integer("index", gpu.index));
    TP_RETURN_IF_ERROR(f.Expect(gpu.index >= 0, "index", "a GPU index >= 0"));
    TP_RETURN_IF_ERROR(f.String("pci", gpu.pci));
    TP_RETURN_IF_ERROR(f.Integer("numa", gpu.numa));
    return f.String("nic", gpu.nic);
  }));
  TP_RETURN_IF_ERROR(top.Array("lldp", [&report, source_name](const Fields& f) -> absl::Status {
    LldpNeighbor& n = report.lldp.emplace_back();
    TP_RETURN_IF_ERROR(f.String("local_port", n.local_port, /*required=*/true));
    TP_RETURN_IF_ERROR(f.String("system_name", n.system_name, /*required=*/true));
    TP_RETURN_IF_ERROR(f.String("port", n.port, /*required=*/true));
    std::string role;
    TP_RETURN_IF_ERROR(f.String("role", role));
    TP_RETURN_IF_ERROR(
        f.Expect(role.empty() || role == "host" || role == "switch" || role == "unknown", "role",
                 "\"host\", \"switch\" or \"unknown\""));
    n.role = role == "host"     ? NodeRole::kHost
             : role == "switch" ? NodeRole::kSwitch
                                : NodeRole::kUnknown;
    TP_RETURN_IF_ERROR(f.Number("speed_gbps", n.speed_gbps));
    TP_RETURN_IF_ERROR(f.Expect(!n.local_port.empty() && !n.system_name.empty() && !n.port.empty(),
                                "local_port/system_name/port", "non-empty names"));
    n.origin = absl::StrCat(source_name, ": ", f.path());
    return absl::OkStatus();
  }));
  if (auto w = j.find("warnings"); w != j.end()) {
    TP_RETURN_IF_ERROR(top.Expect(w->is_array(), "warnings", "an array of strings"));
    for (const json& item : *w) {
      TP_RETURN_IF_ERROR(top.Expect(item.is_string(), "warnings", "an array of strings"));
      report.warnings.push_back(item.get<std::string>());
    }
  }
  return report;
}

absl::StatusOr<AgentReport> LoadAgentReportFile(const std::string& path) {
  TP_ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  return ParseAgentReport(text, path);
}

FabricFacts AgentReportToFacts(const AgentReport& report, absl::string_view origin) {
  FabricFacts facts;
  HostFact& host = facts.hosts.emplace_back();
  host.name = report.host;
  host.nvlink_domain = report.nvlink_domain;
  host.gpu_model = report.gpu_model;
  host.origin = std::string(origin);
  for (const AgentNic& nic : report.nics) {
    NicFact& fact = host.nics.emplace_back();
    fact.name = nic.name;
    fact.speed_gbps = nic.speed_gbps;
  }
  for (const AgentGpu& gpu : report.gpus) {
    host.gpus.push_back(GpuFact{.index = gpu.index, .nic = gpu.nic, .numa = gpu.numa});
  }
  LldpView view;
  view.local_name = report.host;
  view.local_role = NodeRole::kHost;
  view.neighbors = report.lldp;
  FabricFacts links = LldpViewToFacts(view);
  facts.links = std::move(links.links);

  std::vector<std::string> down, silent;
  for (const AgentNic& nic : report.nics) {
    bool has_neighbor = false;
    for (const LldpNeighbor& n : report.lldp)
      has_neighbor = has_neighbor || n.local_port == nic.name;
    if (has_neighbor) continue;
    const std::string name = absl::StrCat(report.host, "/", nic.name);
    if (!nic.state.empty() && nic.state != "up" && nic.state != "active") {
      down.push_back(absl::StrCat(name, " (", nic.state, ")"));
    } else if (nic.link_layer != "InfiniBand") {  // IB ports speak no LLDP
      silent.push_back(name);
    }
  }
  AddGroupedWarning(facts.warnings, absl::StrCat("NICs are down, no LLDP neighbor (", origin, ")"),
                    down);
  AddGroupedWarning(facts.warnings,
                    absl::StrCat("NICs are up but have no LLDP neighbor (", origin, ")"), silent);
  for (const std::string& w : report.warnings) {
    facts.warnings.push_back(absl::StrCat(report.host, ": ", w));
  }
  return facts;
}

}  // namespace topoplace::discovery
