#include "store/etcd/txn_group.h"

#include <algorithm>

namespace topoplace::store {

std::optional<absl::flat_hash_set<std::string>> TxnKeys(const etcdserverpb::TxnRequest& txn) {
  absl::flat_hash_set<std::string> keys;
  for (const etcdserverpb::Compare& c : txn.compare()) keys.insert(c.key());
  for (const etcdserverpb::RequestOp& op : txn.success()) {
    if (op.has_request_put()) {
      if (op.request_put().prev_kv()) return std::nullopt;
      keys.insert(op.request_put().key());
    } else if (op.has_request_delete_range()) {
      const etcdserverpb::DeleteRangeRequest& del = op.request_delete_range();
      if (!del.range_end().empty() || del.prev_kv()) return std::nullopt;
      keys.insert(del.key());
    } else {
      return std::nullopt;  // a read sees the other members' writes, or not, by position
    }
  }
  return keys;
}

bool TxnGroup::Add(const etcdserverpb::TxnRequest& txn, int reserve_ops, size_t reserve_bytes) {
  std::optional<absl::flat_hash_set<std::string>> keys = TxnKeys(txn);
  const size_t bytes = txn.ByteSizeLong();
  if (!members_.empty()) {
    if (!keys.has_value() || !groupable_) return false;
    for (const std::string& key : *keys) {
      if (keys_.contains(key)) return false;
    }
    const bool fits = compares_ + txn.compare_size() + reserve_ops <= limits_.max_ops &&
                      operations_ + txn.success_size() <= limits_.max_ops &&
                      bytes_ + bytes + reserve_bytes <= limits_.max_bytes;
    if (!fits) return false;
  }
  members_.push_back(&txn);
  groupable_ = keys.has_value();
  if (groupable_) keys_.insert(keys->begin(), keys->end());
  compares_ += txn.compare_size();
  operations_ += txn.success_size();
  bytes_ += bytes;
  return true;
}

etcdserverpb::TxnRequest TxnGroup::Combined() const {
  if (members_.size() == 1) return *members_.front();
  etcdserverpb::TxnRequest combined;
  for (const etcdserverpb::TxnRequest* m : members_) {
    combined.mutable_compare()->MergeFrom(m->compare());
    combined.mutable_success()->MergeFrom(m->success());
  }
  return combined;
}

etcdserverpb::TxnResponse TxnGroup::ShareOf(const etcdserverpb::TxnResponse& applied, int i) const {
  int first = 0;
  for (int m = 0; m < i; ++m) first += members_[m]->success_size();
  etcdserverpb::TxnResponse share;
  *share.mutable_header() = applied.header();
  share.set_succeeded(true);
  const int end = std::min(first + members_[i]->success_size(), applied.responses_size());
  for (int r = first; r < end; ++r) *share.add_responses() = applied.responses(r);
  return share;
}

}  // namespace topoplace::store
