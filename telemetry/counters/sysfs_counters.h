// Port counters from sysfs, read under a configurable root so tests use recorded trees:
//   <root>/sys/class/infiniband/<dev>/ports/<n>/counters/*      (IB PMA counters)
//   <root>/sys/class/infiniband/<dev>/ports/<n>/hw_counters/*   (RoCE: ECN, CNP, ...)
//   <root>/sys/class/net/<if>/statistics/*                      (Ethernet)
// Every file must hold one non-negative decimal integer (trailing whitespace allowed);
// anything else is rejected with InvalidArgument naming the file.
//
//   TP_ASSIGN_OR_RETURN(PortCounterSet s, ReadInfinibandPort("/", "mlx5_0", 1));
//   PortTotals t = Summarise(s);   // rx_errors, tx_discards, ecn_marked, cnp_sent, link_downs
//
// Thread-safe (no state).
#ifndef TOPOPLACE_TELEMETRY_COUNTERS_SYSFS_COUNTERS_H_
#define TOPOPLACE_TELEMETRY_COUNTERS_SYSFS_COUNTERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace topoplace::telemetry {

struct PortCounterSet {
  std::string device;                      // "mlx5_0" or "eth0"
  int port = 0;                            // IB port number; 0 for net devices
  std::map<std::string, uint64_t> values;  // file name -> value
};

// The counters the telemetry RPC carries, summed from the names each driver uses.
struct PortTotals {
  uint64_t rx_errors = 0;    // symbol_error + port_rcv_errors + ...; net: rx_errors
  uint64_t tx_discards = 0;  // port_xmit_discards; net: tx_dropped
  uint64_t ecn_marked = 0;   // np_ecn_marked_roce_packets
  uint64_t cnp_sent = 0;     // np_cnp_sent
  uint64_t link_downs = 0;   // link_downed; net: carrier_down_count
};

// A counter another program wrote as a number (node_exporter's floats, UFM's JSON numbers):
// the value when it is a whole number in [0, 2^53] (read exactly), else nullopt.
std::optional<uint64_t> ExactCounter(double value);

// Parses one counter file's text. `path` is only used in the message.
absl::StatusOr<uint64_t> ParseCounterText(absl::string_view path, absl::string_view text);

// Reads counters/ and hw_counters/ (hw_counters may be absent). NotFound if the port
// directory does not exist.
absl::StatusOr<PortCounterSet> ReadInfinibandPort(const std::string& root,
                                                  const std::string& device, int port);
// Reads statistics/ (and carrier_down_count beside it, when present).
absl::StatusOr<PortCounterSet> ReadNetDevice(const std::string& root, const std::string& netdev);

PortTotals Summarise(const PortCounterSet& set);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_COUNTERS_SYSFS_COUNTERS_H_
