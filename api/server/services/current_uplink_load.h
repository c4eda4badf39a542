// The uplink load the daemon knows now, as Place and Reserve steer by it and the console
// shows it: scheduler/load/current_uplink_load.h over the sources the configuration names
// (the operator's load file, port-counter rates, the live allocations' plans). Empty when
// no source is configured. Thread-safe (the sources are).
#ifndef TOPOPLACE_API_SERVER_SERVICES_CURRENT_UPLINK_LOAD_H_
#define TOPOPLACE_API_SERVER_SERVICES_CURRENT_UPLINK_LOAD_H_

#include <vector>

#include "absl/time/time.h"
#include "api/server/services/service_context.h"

namespace topoplace::server {

// One share per switch of the served fabric (see scheduler/state/uplink_load.h), or empty.
std::vector<double> CurrentUplinkLoad(const ServiceContext& context, absl::Time now);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_CURRENT_UPLINK_LOAD_H_
