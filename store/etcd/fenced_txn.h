// One etcd transaction that only applies while the writer's fence holds: the fence's
// compare is added to the caller's, and when etcd refuses because of it the fence source
// is told (the replica steps down) and the caller gets Unavailable.
#ifndef TOPOPLACE_STORE_ETCD_FENCED_TXN_H_
#define TOPOPLACE_STORE_ETCD_FENCED_TXN_H_

#include "absl/status/statusor.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/write_fence.h"

namespace topoplace::store {

// Runs `txn` with `fence`'s compare added. The response says whether etcd applied it; when
// another compare failed, the caller's failure reads are in place (the fence's own read
// comes last). Unavailable, naming why, when the fence no longer holds (after calling
// source.FenceLost, and setting *fence_lost if given) and as EtcdClient reports a failed
// call (then whether etcd applied it is unknown).
absl::StatusOr<etcdserverpb::TxnResponse> FencedTxn(EtcdClient& etcd, FenceSource& source,
                                                    const Fence& fence,
                                                    etcdserverpb::TxnRequest& txn,
                                                    bool* fence_lost = nullptr);

// Whether a response from FencedTxn that did not apply failed on the fence.
bool FenceFailed(const etcdserverpb::TxnResponse& response, const Fence& fence);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_FENCED_TXN_H_
