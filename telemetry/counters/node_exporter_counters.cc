#include "telemetry/counters/node_exporter_counters.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"

namespace topoplace::telemetry {
namespace {

// node_exporter's series (collector/infiniband_linux.go, prometheus/node_exporter) and the
// sysfs counter file each is read from (the kernel's
// /sys/class/infiniband/<dev>/ports/<n>/counters/ names).
constexpr std::array<std::pair<absl::string_view, absl::string_view>, 13> kNodeExporterCounters = {{
    {"node_infiniband_link_downed_total", "link_downed"},
    {"node_infiniband_link_error_recovery_total", "link_error_recovery"},
    {"node_infiniband_symbol_error_total", "symbol_error"},
    {"node_infiniband_port_errors_received_total", "port_rcv_errors"},
    {"node_infiniband_port_receive_remote_physical_errors_total",
     "port_rcv_remote_physical_errors"},
    {"node_infiniband_port_receive_switch_relay_errors_total", "port_rcv_switch_relay_errors"},
    {"node_infiniband_local_link_integrity_errors_total", "local_link_integrity_errors"},
    {"node_infiniband_excessive_buffer_overrun_errors_total", "excessive_buffer_overrun_errors"},
    {"node_infiniband_port_discards_transmitted_total", "port_xmit_discards"},
    {"node_infiniband_port_discards_received_total", "port_rcv_discards"},
    {"node_infiniband_port_constraint_errors_transmitted_total", "port_xmit_constraint_errors"},
    {"node_infiniband_port_constraint_errors_received_total", "port_rcv_constraint_errors"},
    {"node_infiniband_vl15_dropped_total", "VL15_dropped"},
}};

absl::string_view CounterFile(absl::string_view metric) {
  for (const auto& [series, file] : kNodeExporterCounters) {
    if (series == metric) return file;
  }
  return {};
}

// The labels of `block` (the text between '{' and '}'): name="value" pairs separated by
// commas, values with the exposition format's escapes (\\, \", \n).
absl::StatusOr<std::map<std::string, std::string>> ParseLabels(absl::string_view block) {
  std::map<std::string, std::string> labels;
  size_t i = 0;
  while (i < block.size()) {
    if (block[i] == ',' || block[i] == ' ') {
      ++i;
      continue;
    }
    const size_t eq = block.find('=', i);
    if (eq == absl::string_view::npos || eq + 1 >= block.size() || block[eq + 1] != '"') {
      return absl::InvalidArgumentError("expected label=\"value\" in the label block");
    }
    std::string name(absl::StripAsciiWhitespace(block.substr(i, eq - i)));
    std::string value;
    size_t j = eq + 2;
    for (; j < block.size() && block[j] != '"'; ++j) {
      if (block[j] == '\\' && j + 1 < block.size()) {
        ++j;
        value.push_back(block[j] == 'n' ? '\n' : block[j]);
      } else {
        value.push_back(block[j]);
      }
    }
    if (j >= block.size()) return absl::InvalidArgumentError("unterminated label value");
    labels[std::move(name)] = std::move(value);
    i = j + 1;
  }
  return labels;
}

absl::StatusOr<uint64_t> WholeValue(absl::string_view text) {
  double v = 0;
  std::optional<uint64_t> counter;
  if (absl::SimpleAtod(text, &v)) counter = ExactCounter(v);
  if (!counter) {
    return absl::InvalidArgumentError(
        absl::StrCat("value '", text, "' is not a whole number in [0, 2^53]"));
  }
  return *counter;
}

}  // namespace

absl::StatusOr<std::vector<PortCounterSet>> ParseNodeExporterInfiniband(absl::string_view text,
                                                                        absl::string_view source) {
  std::vector<PortCounterSet> ports;
  std::map<std::pair<std::string, int>, size_t> index;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    const size_t name_end = line.find_first_of("{ ");
    const absl::string_view file = CounterFile(line.substr(0, name_end));
    if (file.empty()) continue;
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ":", line_no, ": ", line.substr(0, name_end), ": ", why));
    };
    if (name_end == absl::string_view::npos || line[name_end] != '{') {
      return bad("expected {device=\"...\",port=\"...\"} labels");
    }
    const size_t close = line.find('}', name_end);
    if (close == absl::string_view::npos) return bad("unterminated label block");
    absl::StatusOr<std::map<std::string, std::string>> labels =
        ParseLabels(line.substr(name_end + 1, close - name_end - 1));
    if (!labels.ok()) return bad(labels.status().message());
    const auto device = labels->find("device");
    const auto port_label = labels->find("port");
    if (device == labels->end() || device->second.empty() || port_label == labels->end()) {
      return bad("expected both a device and a port label");
    }
    int port = 0;
    if (!absl::SimpleAtoi(port_label->second, &port) || port < 1 || port > 255) {
      return bad(absl::StrCat("port '", port_label->second, "' is not a port number (1-255)"));
    }
    // The sample: its value, then an optional timestamp.
    std::vector<absl::string_view> fields =
        absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
    if (fields.empty() || fields.size() > 2) return bad("expected a value (and a timestamp)");
    absl::StatusOr<uint64_t> value = WholeValue(fields[0]);
    if (!value.ok()) return bad(value.status().message());
    const auto key = std::make_pair(device->second, port);
    auto [it, inserted] = index.try_emplace(key, ports.size());
    if (inserted) ports.push_back({device->second, port, {}});
    ports[it->second].values[std::string(file)] = *value;
  }
  return ports;
}

}  // namespace topoplace::telemetry
