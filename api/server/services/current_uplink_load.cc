#include "api/server/services/current_uplink_load.h"

#include "scheduler/load/current_uplink_load.h"

namespace topoplace::server {

std::vector<double> CurrentUplinkLoad(const ServiceContext& context, absl::Time now) {
  sched::UplinkLoadSources sources;
  if (context.uplink_load) sources.file = [&context] { return context.uplink_load->Current(); };
  if (context.measured_load) {
    sources.measured = [&context](absl::Time at) { return context.measured_load->Current(at); };
  }
  sources.held = context.live_load.get();
  return sched::CurrentUplinkLoad(sources, now, context.ledger);
}

}  // namespace topoplace::server
