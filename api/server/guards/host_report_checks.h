// What ReportHost accepts: a parsed agent report whose host name is a valid host name, whose
// every text field is printable (no control characters reach logs, tables or terminals),
// whose numbers are in the ranges real hardware has, and whose lists are of a real host's
// size. Kept apart from the RPC so the rules read in one place.
#ifndef TOPOPLACE_API_SERVER_GUARDS_HOST_REPORT_CHECKS_H_
#define TOPOPLACE_API_SERVER_GUARDS_HOST_REPORT_CHECKS_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/discovery/agent_report.h"

namespace topoplace::server {

// Fastest port speed accepted, Gb/s: twice the fastest Ethernet/InfiniBand port shipping
// today (1.6 Tb/s, IEEE 802.3dj / XDR InfiniBand), so the next generation still fits.
inline constexpr double kMaxPortSpeedGbps = 3200;
// List sizes: a GB200 NVL72 compute tray has 4 GPUs and 8 NICs, a DGX 8 GPUs and up to 12
// NICs; the limits leave room for SR-IOV virtual functions and many LLDP-visible ports.
inline constexpr size_t kMaxReportNics = 1024;
inline constexpr size_t kMaxReportGpus = 256;
inline constexpr size_t kMaxReportNeighbors = 4096;

// A report that passed every check, with the form ReportHost stores: compact JSON, without
// the pretty-printing that made stored reports several times larger than sent.
struct CheckedHostReport {
  discovery::AgentReport report;
  std::string compact_json;
};

// The report in `report_json` (at most kMaxHostReportBytes), parsed and checked.
// InvalidArgument names the field (as a JSON path) and what was expected.
absl::StatusOr<CheckedHostReport> ParseCheckedHostReport(absl::string_view report_json);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_HOST_REPORT_CHECKS_H_
