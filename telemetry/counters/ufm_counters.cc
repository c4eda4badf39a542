#include "telemetry/counters/ufm_counters.h"

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/json_depth.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

using json = nlohmann::json;

// UFM Telemetry's counter names (as in Mellanox/ufm_sdk_3.0's
// plugins/fluentd_telemetry_plugin/tests/message_samples/small_telemetry.json) and the
// sysfs counter file of the same IB PMA counter.
constexpr std::array<std::pair<absl::string_view, absl::string_view>, 12> kUfmCounters = {{
    {"Infiniband_LinkDowned_u_Errors", "link_downed"},
    {"Infiniband_LinkRecovers_u_Errors", "link_error_recovery"},
    {"Infiniband_SymbolErrors_u_Errors", "symbol_error"},
    {"Infiniband_RcvErrors_u_Errors", "port_rcv_errors"},
    {"Infiniband_RcvRemotePhysErrors_u_Errors", "port_rcv_remote_physical_errors"},
    {"Infiniband_RcvSwRelayErrors_u_Errors", "port_rcv_switch_relay_errors"},
    {"Infiniband_LinkIntegrityErrors_u_Errors", "local_link_integrity_errors"},
    {"Infiniband_ExcBufOverrunErrors_u_Errors", "excessive_buffer_overrun_errors"},
    {"Infiniband_XmtDiscards_u_Errors", "port_xmit_discards"},
    {"Infiniband_XmtConstraintErrors_u_Errors", "port_xmit_constraint_errors"},
    {"Infiniband_RcvConstraintErrors_u_Errors", "port_rcv_constraint_errors"},
    {"Infiniband_VL15Dropped_u_Drops", "VL15_dropped"},
}};

// "0x0c42a103007ab890" (or without 0x) as a GUID.
std::optional<uint64_t> ParseGuid(absl::string_view text) {
  absl::ConsumePrefix(&text, "0x");
  uint64_t guid = 0;
  if (text.empty() || text.size() > 16 || !absl::SimpleHexAtoi(text, &guid)) return std::nullopt;
  return guid;
}

}  // namespace

absl::StatusOr<std::vector<UfmPort>> ParseUfmTelemetry(absl::string_view text,
                                                       absl::string_view source) {
  TP_RETURN_IF_ERROR(CheckJsonDepth(text, source));
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not JSON"));
  }
  if (!doc.is_object() || !doc.contains("values") || !doc["values"].is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected a UFM telemetry message, {\"values\": [port records]}"));
  }
  std::vector<UfmPort> out;
  const json& values = doc["values"];
  for (size_t i = 0; i < values.size(); ++i) {
    const json& r = values[i];
    const std::string at = absl::StrCat(source, ": values[", i, "]");
    if (!r.is_object()) return absl::InvalidArgumentError(at + ": expected an object");
    UfmPort port;
    for (auto [field, guid] : {std::pair<const char*, uint64_t*>("node_guid", &port.node_guid),
                               {"port_guid", &port.port_guid}}) {
      const auto it = r.find(field);
      std::optional<uint64_t> parsed;
      if (it != r.end() && it->is_string()) parsed = ParseGuid(it->get<std::string>());
      if (!parsed) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ".", field, ": expected a hexadecimal GUID string"));
      }
      *guid = *parsed;
    }
    const auto num = r.find("port_num");
    if (num == r.end() || !num->is_number_unsigned() || num->get<uint64_t>() < 1 ||
        num->get<uint64_t>() > 255) {
      return absl::InvalidArgumentError(at + ".port_num: expected a port number (1-255)");
    }
    port.counters.device = absl::StrFormat("0x%016x", port.node_guid);
    port.counters.port = static_cast<int>(num->get<uint64_t>());
    for (const auto& [name, file] : kUfmCounters) {
      const auto it = r.find(std::string(name));
      if (it == r.end()) continue;
      const std::optional<uint64_t> v =
          it->is_number() ? ExactCounter(it->get<double>()) : std::nullopt;
      if (!v) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ".", name, ": expected a whole number in [0, 2^53]"));
      }
      port.counters.values[std::string(file)] = *v;
    }
    out.push_back(std::move(port));
  }
  return out;
}

absl::StatusOr<GuidMap> ParseGuidMap(absl::string_view text, absl::string_view source) {
  GuidMap map;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    const std::string at = absl::StrCat(source, ":", line_no, ": ");
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(at + "expected 'GUID NAME' (NAME: host/nic or a switch)");
    }
    std::optional<uint64_t> guid = ParseGuid(fields[0]);
    if (!guid) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "'", fields[0], "' is not a GUID (up to 16 hex digits, 0x optional)"));
    }
    if (!map.try_emplace(*guid, std::string(fields[1])).second) {
      return absl::InvalidArgumentError(absl::StrCat(at, "GUID ", fields[0], " is mapped twice"));
    }
  }
  return map;
}

std::optional<std::string> NameOf(const GuidMap& map, const UfmPort& port) {
  if (auto it = map.find(port.port_guid); it != map.end()) return it->second;
  if (auto it = map.find(port.node_guid); it != map.end()) return it->second;
  return std::nullopt;
}

}  // namespace topoplace::telemetry
