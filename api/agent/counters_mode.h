// `topoplace-agent counters ...`: port counters from what a site already runs, for link
// health without the agent's probe mode: node_exporter's InfiniBand collector on a host
// (--node-exporter, this host's NICs), or UFM Telemetry's port records for the whole
// fabric (--ufm with a --guid-map naming GUIDs as the fabric names them). Each round reads
// the source (an http:// URL or a file), turns it into the counter report the probe mode
// sends (Telemetry.ReportPortCounters) and sends it; the daemon's health model judges the
// rates between reports (link downs, receive errors) as it does for sysfs counters.
//
//   topoplace-agent counters --server 10.0.0.254:7469 --host-name h0
//       --node-exporter http://127.0.0.1:9100/metrics --interval-ms 10000   (one line)
//   topoplace-agent counters --server 10.0.0.254:7469 --ufm ufm-message.json
//       --guid-map guids.txt --fabric fabric.json                           (one line)
//
// node_exporter: a device's port 1 is the fabric NIC "host/<device>" (as the probe mode
// reads port 1); other ports are skipped. UFM: a GUID mapped to "host/nic" reports that
// NIC; one mapped to a switch name reports the switch port. With --fabric, entries naming
// no NIC or switch of the fabric are left out and said (the daemon refuses a whole report
// that names one). A UFM report speaks for many hosts: it needs a credential that may
// (the admin token), not a host's own.
//
// Exit: 0 ok, 2 bad input (flags, or a first reading that does not parse), 1 otherwise.
// Later rounds that cannot read or parse their source are said and skipped.
#ifndef TOPOPLACE_API_AGENT_COUNTERS_MODE_H_
#define TOPOPLACE_API_AGENT_COUNTERS_MODE_H_

namespace topoplace::agent {

// Parses the counters-mode flags (argv[0] is "counters") and runs.
int CountersMain(int argc, char** argv);

}  // namespace topoplace::agent

#endif  // TOPOPLACE_API_AGENT_COUNTERS_MODE_H_
