#include "store/etcd/group_commit.h"

#include <optional>
#include <utility>

#include "store/etcd/fenced_txn.h"

namespace topoplace::store {
namespace {

// What FencedTxn adds to a transaction: one compare and one failure read of the fence key,
// and their bytes (as the ledger's size check counts them).
constexpr int kFenceOps = 1;
constexpr size_t kFenceBytes = 512;

}  // namespace

struct GroupCommit::Waiter {
  Waiter(const Fence& f, const etcdserverpb::TxnRequest& t) : fence(f), txn(t) {}
  const Fence& fence;
  const etcdserverpb::TxnRequest& txn;
  bool done = false;
  bool fence_lost = false;
  std::optional<absl::StatusOr<etcdserverpb::TxnResponse>> answer;
};

absl::StatusOr<etcdserverpb::TxnResponse> GroupCommit::Run(const Fence& fence,
                                                           const etcdserverpb::TxnRequest& txn,
                                                           bool* fence_lost) {
  Waiter me(fence, txn);
  mu_.Lock();
  queue_.push_back(&me);
  const auto turn = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return me.done || !sending_; };
  while (true) {
    mu_.Await(absl::Condition(&turn));
    if (me.done) break;
    // No group is with etcd: this thread sends the next one (which may not hold `me`).
    TxnGroup group(limits_);
    const std::deque<Waiter*> members = TakeGroupLocked(group);
    sending_ = true;
    mu_.Unlock();
    std::vector<GroupAnswer> answers = SendGroup(etcd_, source_, members.front()->fence, group);
    mu_.Lock();
    sending_ = false;
    ++counts_.transactions;
    if (!answers.front().answer.has_value()) ++counts_.regrouped;
    for (size_t i = 0; i < members.size(); ++i) {
      members[i]->answer = std::move(answers[i].answer);
      members[i]->fence_lost = answers[i].fence_lost;
      members[i]->done = true;
    }
  }
  ++counts_.changes;
  const bool alone = !me.answer.has_value();  // the group did not apply: run alone
  if (alone) ++counts_.transactions;
  mu_.Unlock();
  if (alone) {
    etcdserverpb::TxnRequest copy = txn;
    return FencedTxn(etcd_, source_, fence, copy, fence_lost);
  }
  if (fence_lost != nullptr && me.fence_lost) *fence_lost = true;
  return *std::move(me.answer);
}

std::deque<GroupCommit::Waiter*> GroupCommit::TakeGroupLocked(TxnGroup& group) {
  std::deque<Waiter*> members;
  while (!queue_.empty()) {
    Waiter* next = queue_.front();
    if (!members.empty() && !(next->fence == members.front()->fence)) break;
    if (!group.Add(next->txn, kFenceOps, kFenceBytes)) break;
    members.push_back(next);
    queue_.pop_front();
  }
  return members;
}

std::vector<GroupAnswer> SendGroup(EtcdClient& etcd, FenceSource& source, const Fence& fence,
                                   const TxnGroup& group) {
  etcdserverpb::TxnRequest txn = group.Combined();
  bool fence_lost = false;
  absl::StatusOr<etcdserverpb::TxnResponse> r = FencedTxn(etcd, source, fence, txn, &fence_lost);
  std::vector<GroupAnswer> answers(group.size());
  if (group.size() == 1) {
    answers[0].answer = std::move(r);
    answers[0].fence_lost = fence_lost;
    return answers;
  }
  // A lost answer (the group may have applied) and a lost fence hold for every member. Any
  // other refusal, or a member's failed compare, tells nothing about the others.
  const bool shared = r.ok() ? r->succeeded() : fence_lost || absl::IsUnavailable(r.status());
  if (!shared) return answers;
  for (int i = 0; i < group.size(); ++i) {
    if (r.ok()) {
      answers[i].answer = group.ShareOf(*r, i);
    } else {
      answers[i].answer = r.status();
      answers[i].fence_lost = fence_lost;
    }
  }
  return answers;
}

GroupCommit::Counts GroupCommit::counts() const {
  absl::MutexLock lock(&mu_);
  return counts_;
}

}  // namespace topoplace::store
