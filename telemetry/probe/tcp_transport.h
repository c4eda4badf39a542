// The TCP probe transport: the fallback where there is no RDMA device, and what tests
// and the network-namespace integration test use. Same shape as the verbs transport:
// ping-pong of `latency_bytes` for latency (TCP_NODELAY), a timed one-way stream for
// bandwidth (the responder reports how many bytes it received).
//
// Wire format (all integers big-endian): the client sends one op byte, 'L' or 'B', and a
// uint32 message size. 'L': the client then sends messages of that size and the responder
// echoes each one back, until the client closes. 'B': the client streams blocks until it
// half-closes; the responder answers with a uint64 byte count and closes.
#ifndef TOPOPLACE_TELEMETRY_PROBE_TCP_TRANSPORT_H_
#define TOPOPLACE_TELEMETRY_PROBE_TCP_TRANSPORT_H_

#include "telemetry/probe/transport.h"

namespace topoplace::telemetry {

ProbeTransportPtr NewTcpTransport();

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_PROBE_TCP_TRANSPORT_H_
