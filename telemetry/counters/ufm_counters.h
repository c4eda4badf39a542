// Port counters from NVIDIA UFM Telemetry, for sites whose fabric manager already collects
// every port's counters: the JSON message UFM's telemetry streaming (the TFS / fluentd
// plugin of Mellanox/ufm_sdk_3.0) sends, {"timestamp": ..., "type": "full", "values":
// [record, ...]}, one record per port with node_guid, port_guid, port_num and counters
// named like Infiniband_LinkDowned_u_Errors. Each record becomes the PortCounterSet
// ReadInfinibandPort would read on that port (sysfs counter names), so Summarise applies.
//
// UFM knows ports by GUID, topoplace by name: a GUID map ("GUID NAME" lines, NAME a
// fabric NIC "host/nic" or a switch name; '#' comments) names them. A record is named by
// its port GUID if the map has it, else by its node GUID.
//
//   TP_ASSIGN_OR_RETURN(std::vector<UfmPort> ports, ParseUfmTelemetry(json, "ufm.json"));
//   TP_ASSIGN_OR_RETURN(GuidMap names, ParseGuidMap(text, "guids.txt"));
//
// Errors: InvalidArgument naming the source and the record index or line, for JSON that
// is not such a message, a record without GUIDs or port, a counter that is not a whole
// non-negative number, a GUID that is not hexadecimal, or a GUID mapped twice.
// Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_COUNTERS_UFM_COUNTERS_H_
#define TOPOPLACE_TELEMETRY_COUNTERS_UFM_COUNTERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "telemetry/counters/sysfs_counters.h"

namespace topoplace::telemetry {

struct UfmPort {
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  PortCounterSet counters;  // device: the node GUID as 0x + 16 hex digits; port: port_num
};

absl::StatusOr<std::vector<UfmPort>> ParseUfmTelemetry(absl::string_view json,
                                                       absl::string_view source);

using GuidMap = absl::flat_hash_map<uint64_t, std::string>;

absl::StatusOr<GuidMap> ParseGuidMap(absl::string_view text, absl::string_view source);

// The name `map` gives the port (its port GUID first, then its node GUID); nullopt if none.
std::optional<std::string> NameOf(const GuidMap& map, const UfmPort& port);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_COUNTERS_UFM_COUNTERS_H_
