// The daemon's Prometheus metrics, in one registry, with names after the Prometheus
// conventions (base units in the name, `_total` for counters):
//   topoplace_probe_latency_seconds{tier}            histogram, one-way probe latency
//   topoplace_probe_bandwidth_bytes_per_second{tier} histogram
//   topoplace_probe_results_total{result}            reachable / unreachable
//   topoplace_links{health}                          links per health state
//   topoplace_link_health_state{link}                1 degraded, 2 down (unhealthy links only)
//   topoplace_link_health_changes_total{to}
//   topoplace_port_receive_errors_per_second{endpoint}
//   topoplace_telemetry_rejected_reports_total{kind}
//   topoplace_allocations{state}                     live allocations (read at scrape)
//   topoplace_ledger_writable                        1 while this process can record changes
//   topoplace_leader                                 1 while this replica leads
//   topoplace_reservations_expired_total             reservations never committed in time
//   topoplace_store_bytes, topoplace_store_quota_bytes  etcd's database size and quota
//                                                    (a store with a quota only)
//   topoplace_placement_duration_seconds{result}     histogram
//   topoplace_rpc_requests_total{method,code}
//   topoplace_refused_requests_total{level}          Place/Reserve refused for want of room
//   topoplace_free_gpus{level,domain}                free GPUs per domain of each level
//   topoplace_largest_placeable_gpus{level}, topoplace_largest_placeable_hosts{level}
//                                                    the largest whole-host job one domain
//                                                    of the level takes now
//   topoplace_idle_hosts_by_run{size}                idle hosts by the idle run they sit in
//   (the last three read at scrape: scheduler/state/free_capacity.h)
//
//   DaemonMetrics metrics;
//   metrics.ObserveProbe(Tier::kLeaf, 4.2, 380, true);
//   TP_ASSIGN_OR_RETURN(auto server, MetricsServer::Start("127.0.0.1:0", metrics));
//
// Thread-safe: every method may be called concurrently (prometheus-cpp metrics are).
#ifndef TOPOPLACE_TELEMETRY_METRICS_DAEMON_METRICS_H_
#define TOPOPLACE_TELEMETRY_METRICS_DAEMON_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/state/free_capacity.h"
#include "telemetry/health/link_verdict.h"
#include "topology/model/fabric.h"

namespace prometheus {
class Exposer;
}

namespace topoplace::telemetry {

// The ledger's state as the metrics read it at every scrape.
struct LedgerGauges {
  std::map<std::string, double> allocations;  // live allocations by state name
  bool writable = false;                      // Ledger::WriteState() is OK
  bool leading = false;                       // Ledger::MayWrite() is OK
  int64_t expired_reservations = 0;           // since this process started
  // A store with a space quota (etcd): its database size and the quota; -1 unknown.
  int64_t store_bytes = -1;
  int64_t store_quota_bytes = -1;
};

class DaemonMetrics {
 public:
  DaemonMetrics();
  ~DaemonMetrics();

  void ObserveProbe(Tier tier, double latency_us, double bandwidth_gbps, bool reachable);
  // Records a link's current health; healthy links drop their series.
  void SetLinkHealth(const std::string& link, LinkVerdict verdict);
  void SetLinkCounts(int healthy, int degraded, int down);
  void CountHealthChange(LinkVerdict to);
  void SetReceiveErrorRate(const std::string& endpoint, double per_second);
  void CountRejectedReport(const std::string& kind);
  void ObservePlacement(absl::Duration elapsed, bool ok);
  void CountRpc(const std::string& method, const std::string& code);
  // A Place or Reserve refused for want of room; `level` is the one the job was bound to
  // ("block", "pod", or "cluster" for a job bound to none).
  void CountRefused(const std::string& level);
  // Called at every scrape for topoplace_allocations, topoplace_ledger_writable,
  // topoplace_leader and topoplace_reservations_expired_total.
  void SetLedgerSource(std::function<LedgerGauges()> source);
  // Called at every scrape for the free-capacity families.
  void SetCapacitySource(std::function<sched::FreeCapacity()> source);

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }
  // The text exposition format, as /metrics serves it.
  std::string Render() const;

 private:
  friend class MetricsServer;
  class ScrapeCollectable;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<ScrapeCollectable> ledger_, capacity_;
  prometheus::Family<prometheus::Histogram>& probe_latency_;
  prometheus::Family<prometheus::Histogram>& probe_bandwidth_;
  prometheus::Family<prometheus::Counter>& probe_results_;
  prometheus::Family<prometheus::Gauge>& links_;
  prometheus::Family<prometheus::Gauge>& link_state_;
  prometheus::Family<prometheus::Counter>& health_changes_;
  prometheus::Family<prometheus::Gauge>& error_rate_;
  prometheus::Family<prometheus::Counter>& rejected_;
  prometheus::Family<prometheus::Histogram>& placement_;
  prometheus::Family<prometheus::Counter>& rpcs_;
  prometheus::Family<prometheus::Counter>& refused_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, prometheus::Gauge*> link_gauges_ ABSL_GUARDED_BY(mu_);
};

// Serves a registry over HTTP at /metrics. Stops when destroyed.
class MetricsServer {
 public:
  // Whether HTTP basic-auth credentials (user, password) may read the metrics.
  using BasicAuthCheck = std::function<bool(const std::string& user, const std::string& password)>;

  // `address` is host:port (port 0 picks one). Unavailable if it cannot bind. With
  // `auth`, a scrape without accepted basic-auth credentials gets 401.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& address,
                                                              const DaemonMetrics& metrics,
                                                              BasicAuthCheck auth = nullptr);
  ~MetricsServer();
  int port() const { return port_; }

 private:
  MetricsServer() = default;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_METRICS_DAEMON_METRICS_H_
