// How loaded each switch's uplinks already are, for load-aware placement
// (PlacementRequest::uplink_busy), read from a text file an operator or a telemetry
// exporter writes: one switch per line, `SWITCH SHARE`, where SHARE is the share of the
// switch's uplink capacity in use (0.35; above 1 when more is offered than fits), e.g.
// from port counter rates. `#` starts a comment; switches not named are taken as idle.
//
//   TP_ASSIGN_OR_RETURN(std::vector<double> busy, LoadUplinkLoadFile(*fabric, "load.txt"));
//   request.uplink_busy = std::move(busy);
#ifndef TOPOPLACE_SCHEDULER_STATE_UPLINK_LOAD_H_
#define TOPOPLACE_SCHEDULER_STATE_UPLINK_LOAD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Shares per switch id (one entry per switch of `fabric`). InvalidArgument names
// `source_name`, the line and what was expected (a known switch, a share in [0, 100],
// each switch once); nothing is returned on error.
absl::StatusOr<std::vector<double>> ParseUplinkLoad(const Fabric& fabric, absl::string_view text,
                                                    absl::string_view source_name);
// The largest uplink load file read: a line per switch of a 100k-GPU fabric is well under.
inline constexpr int64_t kMaxUplinkLoadFileBytes = 16 << 20;
// Reads and parses a file in that format, without blocking. NotFound if it cannot be
// opened; InvalidArgument naming it when it is not a regular file (a FIFO, a device) or
// is larger than kMaxUplinkLoadFileBytes.

absl::StatusOr<std::vector<double>> LoadUplinkLoadFile(const Fabric& fabric,
                                                       const std::string& path);

// Folds a second estimate of the same uplinks into `shares`, switch by switch, keeping the
// larger: measured port counter rates already carry the running jobs whose plans give the
// other, so the two are never added. An empty `shares` takes `other` as it is.
void KeepLargerShares(std::vector<double>& shares, const std::vector<double>& other);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_UPLINK_LOAD_H_
