// Host reports kept in etcd with the ledger, for replicas that share it: the latest report
// of each host under `<prefix>hosts/<host>`, written by the leader only (each Put is one
// transaction carrying its fence), read by any replica.
#ifndef TOPOPLACE_STORE_ETCD_ETCD_HOST_REPORT_STORE_H_
#define TOPOPLACE_STORE_ETCD_ETCD_HOST_REPORT_STORE_H_

#include <string>

#include "store/etcd/etcd_client.h"
#include "store/etcd/write_fence.h"
#include "store/ports/host_report_store.h"

namespace topoplace::store {

class EtcdHostReportStore final : public store::HostReportStore {
 public:
  // `etcd` and `fence` must outlive the store.
  EtcdHostReportStore(EtcdClient& etcd, FenceSource& fence, std::string prefix)
      : etcd_(etcd), fence_(fence), prefix_(std::move(prefix) + "hosts/") {}

  // Unavailable naming the leader on a replica that does not lead.
  absl::StatusOr<bool> Put(absl::string_view host, absl::string_view report_json,
                           int64_t received_unix_ms) override;
  absl::StatusOr<store::HostReportPage> List(absl::string_view after, int limit,
                                             size_t max_bytes) override;

 private:
  EtcdClient& etcd_;
  FenceSource& fence_;
  const std::string prefix_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_ETCD_HOST_REPORT_STORE_H_
