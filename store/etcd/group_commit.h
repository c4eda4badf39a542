// Group commit for the etcd ledger: changes that arrive while an earlier group is with
// etcd wait for it, then go to etcd together as one fenced transaction (txn_group.h). One
// raft round and one disk flush then acknowledge them all, where each change used to be
// its own transaction; the guarantees are those of FencedTxn for each change alone:
// - a change applies only with all its own compares holding and the writer's fence;
// - when the group does not apply because a member's compare failed, every member is run
//   again alone, so a conflict fails only its own change, with its own failure reads;
// - when etcd's answer is lost (Unavailable), every member of the group gets that answer,
//   as a change sent alone would: it may or may not have been recorded.
// Members share no key and the group keeps within etcd's limits; a change that cannot
// share (txn_group.h says which) goes alone. Thread-safe.
#ifndef TOPOPLACE_STORE_ETCD_GROUP_COMMIT_H_
#define TOPOPLACE_STORE_ETCD_GROUP_COMMIT_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/txn_group.h"
#include "store/etcd/write_fence.h"

namespace topoplace::store {

// What sending one group told a member.
struct GroupAnswer {
  // FencedTxn's answer for the member; none when the group did not apply for a reason
  // that may be another member's (a failed compare, a refused request): run it alone.
  std::optional<absl::StatusOr<etcdserverpb::TxnResponse>> answer;
  bool fence_lost = false;
};

// Sends `group` (at least one member) as one transaction under `fence`; an answer per
// member, in member order.
std::vector<GroupAnswer> SendGroup(EtcdClient& etcd, FenceSource& source, const Fence& fence,
                                   const TxnGroup& group);

class GroupCommit {
 public:
  // `etcd` and `source` must outlive this.
  GroupCommit(EtcdClient& etcd, FenceSource& source, TxnLimits limits)
      : etcd_(etcd), source_(source), limits_(limits) {}

  // What FencedTxn(etcd, source, fence, txn, fence_lost) answers (fenced_txn.h), with
  // `txn` sent inside a group when others wait with it. Blocks until etcd answered.
  absl::StatusOr<etcdserverpb::TxnResponse> Run(const Fence& fence,
                                                const etcdserverpb::TxnRequest& txn,
                                                bool* fence_lost = nullptr);

  struct Counts {
    int64_t changes = 0;       // Run calls answered
    int64_t transactions = 0;  // etcd transactions sent, groups and changes alone
    int64_t regrouped = 0;     // groups that did not apply, so their members ran alone
  };
  Counts counts() const;

 private:
  struct Waiter;
  // Takes the longest run of waiters from the queue's front that share the first one's
  // fence and form one group.
  std::deque<Waiter*> TakeGroupLocked(TxnGroup& group) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  EtcdClient& etcd_;
  FenceSource& source_;
  const TxnLimits limits_;
  mutable absl::Mutex mu_;
  std::deque<Waiter*> queue_ ABSL_GUARDED_BY(mu_);
  bool sending_ ABSL_GUARDED_BY(mu_) = false;  // a group is with etcd
  Counts counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_GROUP_COMMIT_H_
