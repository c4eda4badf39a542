// The RDMA verbs probe transport: reliable-connected QPs over registered memory, RDMA
// WRITE ping-pong for latency and a streaming RDMA WRITE for bandwidth (what perftest's
// ib_write_lat and ib_write_bw measure). Connection set-up goes over a TCP side channel
// (QP number, PSN, LID, GID, rkey and buffer address; see verbs_plan.h), the port and GID
// are chosen by ChooseProbePort (RoCEv2 with an IPv4-mapped GID first).
//
//   absl::StatusOr<ProbeTransportPtr> rdma = NewVerbsTransport("mlx5_0", "/");
//   if (absl::IsNotFound(rdma.status())) use NewTcpTransport();   // no RDMA device here
//
// NotFound when libibverbs lists no device (ibv_get_device_list returning NULL with
// ENOSYS, as on machines without an RDMA subsystem, counts as none) or not `device`;
// Unimplemented when built without libibverbs. Thread-safe like every ProbeTransport.
#ifndef TOPOPLACE_TELEMETRY_PROBE_VERBS_TRANSPORT_H_
#define TOPOPLACE_TELEMETRY_PROBE_VERBS_TRANSPORT_H_

#include <string>

#include "telemetry/probe/transport.h"

namespace topoplace::telemetry {

// `device`: an RDMA device name ("mlx5_0"); empty picks the first one. `sysfs_root`
// holds the port and GID attributes ("/" on a real host).
absl::StatusOr<ProbeTransportPtr> NewVerbsTransport(const std::string& device,
                                                    const std::string& sysfs_root);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_PROBE_VERBS_TRANSPORT_H_
