// `topoplace-agent probe ...`: the agent's probe mode. Runs a probe responder on this
// host (RDMA verbs where a device exists, else TCP; --transport), probes the peers the
// probe plan names every interval (telemetry/probe/probe_plan.h),
// reads this host's port counters from sysfs, and reports both to topoplaced over gRPC
// (Telemetry.ReportProbeResults / ReportPortCounters). Runs until SIGINT/SIGTERM or for
// --rounds rounds.
//
//   topoplace-agent probe --server 10.0.0.254:7469 --fabric fabric.json --host-name h0
//       --listen 10.0.0.1 --port 7471 --peers peers.txt --interval-ms 1000   (one line)
//
// peers.txt maps fabric NIC names to the address their responder listens on, one per line:
//   h1/eth0 10.0.0.2          (port: --port)   or   h1/eth0 10.0.0.2:7471
#ifndef TOPOPLACE_API_AGENT_PROBE_MODE_H_
#define TOPOPLACE_API_AGENT_PROBE_MODE_H_

namespace topoplace::agent {

// Parses the probe-mode flags (argv[0] is "probe") and runs. Returns the exit code:
// 0 ok, 2 bad input, 1 internal error.
int ProbeMain(int argc, char** argv);

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_PROBE_MODE_H_
