// The daemon's view of how loaded each switch's uplinks are: a file of `SWITCH SHARE`
// lines (scheduler/state/uplink_load.h) that a telemetry exporter keeps current, read
// again whenever its modification time or size changes. Place and Reserve hand the shares
// to the engine (PlacementRequest::uplink_busy), whose uplink-load scorer then steers jobs
// off hot uplinks. A file that is missing or malformed means "no load known": placement
// goes on without it, and the reason is logged once per version of the file, because
// scheduling must not stop for a telemetry problem.
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_UPLINK_LOAD_SOURCE_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_UPLINK_LOAD_SOURCE_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "topology/model/fabric.h"

namespace topoplace::server {

class UplinkLoadSource {
 public:
  // `fabric` must outlive the source.
  UplinkLoadSource(const Fabric& fabric, std::string path);

  // The shares per switch id as the file says now; empty when it cannot be read or parsed.
  std::vector<double> Current() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const Fabric& fabric_;
  const std::string path_;
  absl::Mutex mu_;
  std::string version_ ABSL_GUARDED_BY(mu_);  // modification time and size last read
  std::vector<double> shares_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_UPLINK_LOAD_SOURCE_H_
