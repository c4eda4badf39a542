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
// A batch etcd did not take (etcd down, a lost answer, no leadership) is kept, each link's
// newest state, and written with the next batch or by RetryUnwritten on the next tick, so
// a state the leader acts on reaches the followers and the next leader once etcd answers
// again. A replica that reads the shared states (to take them over: on start, while it
// follows, once when it wins) drops what it kept.
//
// Thread-safe.
#ifndef TOPOPLACE_STORE_ETCD_ETCD_HEALTH_HISTORY_H_
#define TOPOPLACE_STORE_ETCD_ETCD_HEALTH_HISTORY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/write_fence.h"
#include "store/ports/health_history.h"

namespace topoplace::store {

class EtcdHealthHistory final : public store::HealthHistory {
 public:
  // Links whose states one transaction writes: etcd's default --max-txn-ops is 128, and
  // the fence adds a compare.
  static constexpr int kLinksPerTxn = 100;

  // `etcd`, `fence` and `local` must outlive the history.
  EtcdHealthHistory(EtcdClient& etcd, FenceSource& fence, std::string prefix,
                    store::HealthHistory& local)
      : etcd_(etcd), fence_(fence), prefix_(std::move(prefix) + "health/"), local_(local) {}

  // Appends `events` to the local log and writes each link's newest state (with any kept
  // from before) to etcd. Up to kLinksPerTxn links apply all or none; a larger batch (a
  // switch with more links failing at once) goes in several transactions, in order, and
  // what a failed one did not write is kept for the next try. Unavailable naming the
  // leader on a replica that does not lead.
  absl::Status AddHealthEvents(const std::vector<store::HealthEvent>& events) override;
  absl::Status RetryUnwritten() override { return AddHealthEvents({}); }
  // The newest event of every link, as the leader wrote it; drops the states kept
  // unwritten. A value that is not an event is left out with a warning naming its key
  // (one damaged key must not stop a replica from starting or following).
  absl::StatusOr<std::vector<store::HealthEvent>> LatestHealthEvents() override;
  // The local store's.
  absl::Status AddCounterRates(const std::vector<store::CounterRateRow>& rows) override;
  absl::StatusOr<int64_t> Prune(int64_t cutoff_unix_ms) override;

 private:
  EtcdClient& etcd_;
  FenceSource& fence_;
  const std::string prefix_;
  store::HealthHistory& local_;
  absl::Mutex mu_;  // one writer at a time, so the kept states stay in order
  std::map<std::string, store::HealthEvent> unwritten_ ABSL_GUARDED_BY(mu_);  // by link
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_ETCD_HEALTH_HISTORY_H_
