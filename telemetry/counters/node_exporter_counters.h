// Port counters from Prometheus node_exporter's InfiniBand collector, for sites that run
// node_exporter on their hosts instead of our agent's sysfs reader: its /metrics text
// (the exposition format) becomes the PortCounterSets ReadInfinibandPort would have read,
// under the sysfs file names the collector read them from, so Summarise applies as it is.
//
//   TP_ASSIGN_OR_RETURN(std::vector<PortCounterSet> ports,
//                       ParseNodeExporterInfiniband(text, "http://h0:9100/metrics"));
//
// Only node_infiniband_* error and link counters are read (link_downed, symbol_error,
// port_rcv_errors, port_xmit_discards, ...: kNodeExporterCounters in the .cc, names from
// node_exporter's collector/infiniband_linux.go); every other line is skipped unparsed
// beyond its metric name. A port appears when at least one of its counters does, in the
// order first seen. Values are written as floats by node_exporter (1.8527668e+07); each
// must be a whole number in [0, 2^53], read exactly.
//
// Errors: InvalidArgument "<source>:<line>: ..." for a malformed node_infiniband_ counter
// line (no device or port label, a bad label block, a value that is not a whole
// non-negative number, a port that is no positive integer); nothing is returned then.
// Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_COUNTERS_NODE_EXPORTER_COUNTERS_H_
#define TOPOPLACE_TELEMETRY_COUNTERS_NODE_EXPORTER_COUNTERS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "telemetry/counters/sysfs_counters.h"

namespace topoplace::telemetry {

absl::StatusOr<std::vector<PortCounterSet>> ParseNodeExporterInfiniband(absl::string_view text,
                                                                        absl::string_view source);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_COUNTERS_NODE_EXPORTER_COUNTERS_H_
