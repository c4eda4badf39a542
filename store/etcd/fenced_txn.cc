#include "store/etcd/fenced_txn.h"

namespace topoplace::store {

bool FenceFailed(const etcdserverpb::TxnResponse& response, const Fence& fence) {
  if (response.succeeded() || response.responses_size() == 0) return false;
  const auto& range = response.responses(response.responses_size() - 1).response_range();
  return range.kvs_size() == 0 || range.kvs(0).create_revision() != fence.create_revision;
}

absl::StatusOr<etcdserverpb::TxnResponse> FencedTxn(EtcdClient& etcd, FenceSource& source,
                                                    const Fence& fence,
                                                    etcdserverpb::TxnRequest& txn,
                                                    bool* fence_lost) {
  etcdserverpb::Compare* c = txn.add_compare();
  c->set_key(fence.key);
  c->set_target(etcdserverpb::Compare::CREATE);
  c->set_result(etcdserverpb::Compare::EQUAL);
  c->set_create_revision(fence.create_revision);
  txn.add_failure()->mutable_request_range()->set_key(fence.key);  // the last failure read
  absl::StatusOr<etcdserverpb::TxnResponse> r = etcd.Txn(txn);
  if (!r.ok() || !FenceFailed(*r, fence)) return r;
  source.FenceLost(fence);
  if (fence_lost != nullptr) *fence_lost = true;
  return absl::UnavailableError(
      "not the leader: etcd refused the change because this replica's leadership ended "
      "(the election key changed); nothing was written, retry on the new leader");
}

}  // namespace topoplace::store
