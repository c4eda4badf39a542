#include "api/agent/counter_report.h"

namespace topoplace::agent {

void AddPortCounters(const std::string& endpoint, int port, const telemetry::PortTotals& t,
                     absl::Time at, v1::ReportPortCountersRequest& request) {
  v1::PortCounters* c = request.add_counters();
  c->set_endpoint(endpoint);
  c->set_port(port);
  c->set_rx_errors(t.rx_errors);
  c->set_tx_discards(t.tx_discards);
  c->set_ecn_marked(t.ecn_marked);
  c->set_cnp_sent(t.cnp_sent);
  c->set_link_downs(t.link_downs);
  c->set_measured_unix_ms(absl::ToUnixMillis(at));
}

}  // namespace topoplace::agent
