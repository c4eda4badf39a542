// The daemon's link health loop: telemetry reports go into the FabricHealthModel; a tick
// (once a second) evaluates it, and on every health change persists the events, hands the
// new FabricHealth to the daemon (which swaps in a placement engine built with it: down
// links excluded, degraded ones penalised), updates the metrics and wakes subscribers
// (WatchFabric streams). On start it restores the last persisted state of every link, so
// a restart does not forget a dead link; a replica sharing its history restores again to
// follow the leader's verdicts. The tick also prunes the telemetry time series
// older than the retention.
//
//   HealthMonitor monitor(fabric, &history, swap_engine, metrics, {});
//   TP_RETURN_IF_ERROR(monitor.Restore());
//   monitor.Start();                       // ... Stop() before the store goes away
//
// Thread-safe.
#ifndef TOPOPLACE_TELEMETRY_MONITOR_HEALTH_MONITOR_H_
#define TOPOPLACE_TELEMETRY_MONITOR_HEALTH_MONITOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "scheduler/state/health.h"
#include "store/ports/health_history.h"
#include "telemetry/health/fabric_health_model.h"
#include "telemetry/metrics/daemon_metrics.h"
#include "topology/discovery/agent_report.h"

namespace topoplace::telemetry {

struct HealthMonitorOptions {
  HealthModelOptions model;
  absl::Duration tick = absl::Seconds(1);
  // Time-series rows older than this are pruned; zero keeps everything.
  absl::Duration retention = absl::Hours(24 * 7);
};

struct LinkHealthView {
  LinkVerdict verdict = LinkVerdict::kHealthy;
  std::string reason;
};

class HealthMonitor {
 public:
  // Called with the fabric's new health on every change (and after Restore), from the
  // thread that found it, before subscribers are woken.
  using HealthSink = std::function<void(const sched::FabricHealth&)>;

  // `history` and `metrics` must outlive the monitor; `metrics` may be null.
  HealthMonitor(FabricPtr fabric, store::HealthHistory* history, HealthSink on_health,
                DaemonMetrics* metrics, HealthMonitorOptions options);
  ~HealthMonitor();

  // Brings every link with a persisted event to that event's state and, when any state
  // changed, swaps in a matching engine and wakes subscribers. Called on start; a replica
  // sharing its history with others calls it again to take their verdicts.
  absl::Status Restore();
  // Starts and stops the tick thread. Stop is idempotent.
  void Start();
  void Stop();

  // Validates against the fabric and records the evidence. A rejected batch changes
  // nothing (and is counted in the metrics).
  absl::Status ObserveProbes(const std::vector<ProbeSample>& batch, absl::Time now);
  absl::Status ObserveCounters(const std::vector<CounterSample>& batch, absl::Time now);
  // LLDP from a host's agent report: each cabled NIC of that host whose port no longer
  // sees its fabric leaf as neighbor counts as neighbor loss (down, after the hysteresis);
  // seeing the leaf again clears it. Reports without LLDP data, or from hosts the fabric
  // does not have, judge nothing.
  void ObserveNeighbors(const discovery::AgentReport& report, absl::Time now);
  // One evaluation (the tick thread calls this; tests may call it directly).
  absl::Status Tick(absl::Time now);

  LinkHealthView Link(LinkId link) const;
  // When the link last turned from healthy to degraded or down (restored across restarts
  // from the persisted events); InfinitePast if never since the daemon's history began.
  absl::Time LastTurnedBad(LinkId link) const;
  uint64_t health_version() const;
  // Number of links telemetry judges degraded and down.
  std::pair<int, int> UnhealthyCounts() const;

  // Calls `on_change` (from the tick thread, without locks held by the caller) after
  // every health change until Unsubscribe(id) returns; after that it is never called.
  int Subscribe(std::function<void()> on_change);
  void Unsubscribe(int id);

 private:
  void Publish(const std::vector<HealthChange>& changes, absl::Time now);
  void RunTicks();

  const FabricPtr fabric_;
  store::HealthHistory* const history_;
  const HealthSink on_health_;
  DaemonMetrics* const metrics_;
  const HealthMonitorOptions options_;

  mutable absl::Mutex mu_;
  FabricHealthModel model_ ABSL_GUARDED_BY(mu_);
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  int degraded_ ABSL_GUARDED_BY(mu_) = 0;
  int down_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<absl::Time> turned_bad_at_ ABSL_GUARDED_BY(mu_);  // per link
  absl::Time last_prune_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();

  absl::Mutex subscribers_mu_;
  std::map<int, std::function<void()>> subscribers_ ABSL_GUARDED_BY(subscribers_mu_);
  int next_id_ ABSL_GUARDED_BY(subscribers_mu_) = 0;

  absl::Notification stop_;
  std::thread ticker_;
};

}  // namespace topoplace::telemetry

#endif  // TOPOPLACE_TELEMETRY_MONITOR_HEALTH_MONITOR_H_
