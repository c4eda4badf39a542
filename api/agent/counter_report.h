// The counter report an agent mode sends (Telemetry.ReportPortCounters), from the port
// totals any counter source gives (sysfs, node_exporter, UFM: telemetry/counters/).
#ifndef TOPOPLACE_API_AGENT_COUNTER_REPORT_H_
#define TOPOPLACE_API_AGENT_COUNTER_REPORT_H_

#include <string>

#include "absl/time/time.h"
#include "telemetry/counters/sysfs_counters.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::agent {

// Appends one entry: `endpoint` ("host/nic", or a switch name with its `port`; 0 for a
// NIC), the totals, measured at `at`.
void AddPortCounters(const std::string& endpoint, int port, const telemetry::PortTotals& totals,
                     absl::Time at, v1::ReportPortCountersRequest& request);

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_COUNTER_REPORT_H_
