#include "api/server/current_uplink_load.h"

#include "scheduler/state/uplink_load.h"

namespace topoplace::server {

std::vector<double> CurrentUplinkLoad(const ServiceContext& context, absl::Time now) {
  std::vector<double> shares;
  if (context.uplink_load) shares = context.uplink_load->Current();
  if (context.measured_load) sched::KeepLargerShares(shares, context.measured_load->Current(now));
  if (context.live_load)
    sched::KeepLargerShares(shares, context.live_load->Current(*context.ledger));
  return shares;
}

}  // namespace topoplace::server
