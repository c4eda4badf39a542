// Host reports kept in etcd with the ledger, for replicas that share it: the latest report
// of each host under `<prefix>hosts/<host>`, written by the leader only (each Put is one
// transaction carrying its fence), read by any replica.
#ifndef TOPOPLACE_API_SERVER_STORE_ETCD_HOST_REPORT_STORE_H_
#define TOPOPLACE_API_SERVER_STORE_ETCD_HOST_REPORT_STORE_H_

#include <string>

#include "api/etcd/etcd_client.h"
#include "api/etcd/write_fence.h"
#include "api/server/store/host_report_store.h"

namespace topoplace::server {

class EtcdHostReportStore final : public HostReportStore {
 public:
  // `etcd` and `fence` must outlive the store.
  EtcdHostReportStore(etcd::EtcdClient& etcd, etcd::FenceSource& fence, std::string prefix)
      : etcd_(etcd), fence_(fence), prefix_(std::move(prefix) + "hosts/") {}

  // Unavailable naming the leader on a replica that does not lead.
  absl::StatusOr<bool> Put(absl::string_view host, absl::string_view report_json,
                           int64_t received_unix_ms) override;
  absl::StatusOr<HostReportPage> List(absl::string_view after, int limit,
                                      size_t max_bytes) override;

 private:
  etcd::EtcdClient& etcd_;
  etcd::FenceSource& fence_;
  const std::string prefix_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_STORE_ETCD_HOST_REPORT_STORE_H_
