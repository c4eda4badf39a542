// Link health shared by replicas through etcd, beside the ledger: the latest health event
// of every link under `<prefix>health/<link>`, written by the leader only (fenced), read by
// any replica. A follower follows the leader's verdicts from it, and a replica that wins
// the election starts from them instead of from what it judged itself (it judged nothing:
// followers turn telemetry reports away).
//
// The time series (counter rates, their pruning) and the event log the console shows stay
// in the replica's own SQLite store, `local`: they describe what this replica measured and
// are rebuilt by the next reports, while a link's state must survive a failover.
//
//   EtcdHealthHistory history(etcd, election, "/topoplace/", *telemetry_store);
//   HealthMonitor monitor(fabric, &history, ...);
//
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_STORE_ETCD_HEALTH_HISTORY_H_
#define TOPOPLACE_API_SERVER_STORE_ETCD_HEALTH_HISTORY_H_

#include <string>
#include <vector>

#include "api/etcd/etcd_client.h"
#include "api/etcd/write_fence.h"
#include "telemetry/monitor/health_history.h"

namespace topoplace::server {

class EtcdHealthHistory final : public telemetry::HealthHistory {
 public:
  // Links whose states one transaction writes: etcd's default --max-txn-ops is 128, and
  // the fence adds a compare.
  static constexpr int kLinksPerTxn = 100;

  // `etcd`, `fence` and `local` must outlive the history.
  EtcdHealthHistory(etcd::EtcdClient& etcd, etcd::FenceSource& fence, std::string prefix,
                    telemetry::HealthHistory& local)
      : etcd_(etcd), fence_(fence), prefix_(std::move(prefix) + "health/"), local_(local) {}

  // Writes each link's newest event of `events` to etcd, then appends `events` to the local
  // log. Up to kLinksPerTxn links apply all or none; a larger batch (a switch with more
  // links failing at once) goes in several transactions, in order, and one that fails
  // leaves the links before it at their new state and the rest at their old one.
  // Unavailable naming the leader on a replica that does not lead.
  absl::Status AddHealthEvents(const std::vector<telemetry::HealthEvent>& events) override;
  // The newest event of every link, as the leader wrote it. DataLoss naming the key when a
  // value is not an event.
  absl::StatusOr<std::vector<telemetry::HealthEvent>> LatestHealthEvents() override;
  // The local store's.
  absl::Status AddCounterRates(const std::vector<telemetry::CounterRateRow>& rows) override;
  absl::StatusOr<int64_t> Prune(int64_t cutoff_unix_ms) override;

 private:
  etcd::EtcdClient& etcd_;
  etcd::FenceSource& fence_;
  const std::string prefix_;
  telemetry::HealthHistory& local_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_STORE_ETCD_HEALTH_HISTORY_H_
