// The uplink load that port counters measure. A fabric-side collector (perfquery over the
// switch ports, an exporter reading UFM or the switches' own telemetry) reports each
// switch port's cumulative bytes sent and the node at its other end; a port whose peer is
// a switch above it is an uplink, and two readings give its rate. A switch's busy share is
// the sum of its uplinks' rates over their capacity (sched::UplinkTally's), which Place and
// Reserve fold into the load they steer by (the larger share per switch, with the file and
// the live allocations' plans). Rates older than `max_age` are left out: a collector that
// stopped must not keep a switch hot after its jobs ended.
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_ADAPTERS_MEASURED_UPLINK_LOAD_H_
#define TOPOPLACE_API_SERVER_ADAPTERS_MEASURED_UPLINK_LOAD_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/load/uplink_tally.h"
#include "scheduler/traffic/link_loads.h"
#include "telemetry/counters/counter_rates.h"
#include "topology/model/fabric.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::server {

class MeasuredUplinkLoad {
 public:
  // `fabric` must outlive the load; `max_age` > 0.
  MeasuredUplinkLoad(const Fabric& fabric, absl::Duration max_age);

  // InvalidArgument naming the entry if a `peer` is neither a switch nor a "host/nic" of
  // the fabric. Call before Observe, so a report with a bad entry changes nothing.
  absl::Status Check(const v1::ReportPortCountersRequest& request) const;
  // Takes the uplink ports' tx_bytes readings of a checked report, each at its
  // measured_unix_ms (or `received` when it has none). Other entries are not uplinks and
  // are skipped.
  void Observe(const v1::ReportPortCountersRequest& request, absl::Time received)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Busy share per switch id from the rates measured within max_age of `now`.
  std::vector<double> Current(absl::Time now) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // The switch a counter entry's port leads up from, or -1 if the port is no uplink.
  SwitchId UplinkSwitch(const v1::PortCounters& entry) const;

  const Fabric& fabric_;
  const absl::Duration max_age_;
  const sched::LinkIndex links_;
  const sched::UplinkTally idle_;  // capacities only; copied for each Current

  struct PortRate {
    SwitchId lower = -1;
    double bytes_per_second = 0;
    absl::Time at;
  };
  absl::Mutex mu_;
  telemetry::CounterRates readings_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, PortRate> rates_ ABSL_GUARDED_BY(mu_);  // by "switch:port"
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_ADAPTERS_MEASURED_UPLINK_LOAD_H_
