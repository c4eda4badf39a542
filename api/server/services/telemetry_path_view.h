// Helpers of the Telemetry service's health answers: a link's or switch's health as a
// proto, and the GPUs of a ledger allocation on the served fabric (for the job path view).
// Thread-safe (no state).
#ifndef TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_PATH_VIEW_H_
#define TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_PATH_VIEW_H_

#include <vector>

#include "scheduler/ledger/allocation.h"
#include "telemetry/monitor/health_monitor.h"
#include "topology/model/fabric.h"
#include "topoplace/v1/telemetry.pb.h"

namespace topoplace::server {

using telemetry::HealthMonitor;
using telemetry::LinkHealthView;

// The worse of the link's declared state and telemetry's verdict.
LinkState EffectiveState(const Fabric& fabric, LinkId link, const LinkHealthView& view);
// a, b, name, declared-or-worse state ("up", "degraded", "down"), health and reason.
void FillLinkHealth(const Fabric& fabric, LinkId link, const LinkHealthView& view,
                    v1::LinkHealth& out);
// "down" if every link of the switch is down, "degraded" if any is not healthy.
v1::SwitchHealth SwitchHealthOf(const Fabric& fabric, SwitchId s, const HealthMonitor& monitor);
// GPUs of `allocation` that the fabric has (a GPU of a host no longer served is skipped).
std::vector<GpuId> GpusOfAllocation(const Fabric& fabric, const ledger::Allocation& allocation);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_PATH_VIEW_H_
