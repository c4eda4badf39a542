// How a probe measures one peer: latency by ping-pong and bandwidth by a timed stream,
// the way perftest's ib_write_lat / ib_write_bw do, over some transport (RDMA verbs, or
// TCP where there is no RDMA device). Every host runs a responder that answers probes.
//
//   ProbeTransportPtr tcp = NewTcpTransport();
//   TP_ASSIGN_OR_RETURN(ProbeResponderPtr responder, tcp->Listen("10.0.0.1", 7471));
//   TP_ASSIGN_OR_RETURN(ProbeMeasurement m, tcp->Probe({"10.0.0.2", 7471}, {}));
//
// Errors from Probe: Unavailable when the peer cannot be reached or stops answering
// within the timeout (the probe reports the link unreachable), InvalidArgument for bad
// options. Implementations are thread-safe: probes to different peers may run at once.
#ifndef TOPOPLACE_TELEMETRY_PROBE_TRANSPORT_H_
#define TOPOPLACE_TELEMETRY_PROBE_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace topoplace::telemetry {

struct ProbePeer {
  std::string address;  // IPv4/IPv6 literal of the peer NIC (or its side channel)
  int port = 0;
};

struct ProbeOptions {
  int latency_iterations = 50;  // ping-pong round trips; the median is reported
  int latency_bytes = 64;       // message size of each ping
  absl::Duration bandwidth_duration = absl::Milliseconds(200);  // 0: skip bandwidth
  int bandwidth_block_bytes = 64 << 10;
  absl::Duration timeout = absl::Seconds(2);  // per connect / read / write
};

struct ProbeMeasurement {
  double latency_us = 0;      // one-way: median round trip / 2
  double bandwidth_gbps = 0;  // payload bits per second / 1e9; 0 if not measured
};

// Answers probes until destroyed. Destruction stops it and joins its threads.
class ProbeResponder {
 public:
  virtual ~ProbeResponder() = default;
  // The bound port (useful with port 0).
  virtual int port() const = 0;
};
using ProbeResponderPtr = std::unique_ptr<ProbeResponder>;

class ProbeTransport {
 public:
  virtual ~ProbeTransport() = default;
  // "tcp" or "rdma": what the daemon records with each result.
  virtual absl::string_view name() const = 0;
  // Starts a responder on `address`:`port` (port 0 picks one).
  virtual absl::StatusOr<ProbeResponderPtr> Listen(const std::string& address, int port) = 0;
  virtual absl::StatusOr<ProbeMeasurement> Probe(const ProbePeer& peer,
                                                 const ProbeOptions& options) = 0;
};
using ProbeTransportPtr = std::unique_ptr<ProbeTransport>;

// Checks option ranges (iterations 1..10000, sizes 1..16 MiB, durations <= 60 s).
absl::Status ValidateProbeOptions(const ProbeOptions& options);

// The latency both transports report: runs `round_trip` once to warm up (excluded, like
// perftest's first iterations), then `iterations` times, timing each; returns the median
// round trip / 2 in microseconds, or the first error. Precondition: iterations >= 1.
absl::StatusOr<double> MeasureOneWayLatencyUs(int iterations,
                                              absl::FunctionRef<absl::Status()> round_trip);
// Payload bits per second / 1e9 for `bytes` moved in `seconds` (> 0).
double GigabitsPerSecond(uint64_t bytes, double seconds);

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_PROBE_TRANSPORT_H_
