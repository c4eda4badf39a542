// Several independent etcd transactions as one: what the group commit (group_commit.h)
// sends when changes arrive together. Each member keeps its own compares and operations;
// the group applies only if every member's compares hold, and then it has the effect of
// applying the members one after the other, because no two members touch the same key.
// A group that does not apply says nothing about which member failed: the caller runs
// the members alone (each with its own failure reads) to find out.
#ifndef TOPOPLACE_STORE_ETCD_TXN_GROUP_H_
#define TOPOPLACE_STORE_ETCD_TXN_GROUP_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "etcdserverpb/etcd_subset.pb.h"

namespace topoplace::store {

// Every key `txn` compares, puts or deletes; nullopt when `txn` cannot join a group: it
// reads or deletes a range, nests a transaction, or asks for previous values on success
// (ranges could overlap another member's keys unseen).
std::optional<absl::flat_hash_set<std::string>> TxnKeys(const etcdserverpb::TxnRequest& txn);

// etcd's limits on one transaction: --max-txn-ops (default 128, each of compares, success
// and failure counted alone) and --max-request-bytes (default 1.5 MiB).
struct TxnLimits {
  int max_ops = 128;
  size_t max_bytes = 1'572'864;
};

// A group being built, in arrival order.
class TxnGroup {
 public:
  explicit TxnGroup(TxnLimits limits) : limits_(limits) {}
  // Adds `txn` (which must outlive the group) when it shares no key with the members and
  // the group stays within `limits` with `reserve_ops` compares and failure operations and
  // `reserve_bytes` bytes kept back (for the fence a caller adds); false otherwise. The
  // first member is always taken, even alone beyond the limits (etcd then answers for it).
  bool Add(const etcdserverpb::TxnRequest& txn, int reserve_ops, size_t reserve_bytes);
  int size() const { return static_cast<int>(members_.size()); }
  const etcdserverpb::TxnRequest& member(int i) const { return *members_[i]; }

  // The members' compares and success operations, in member order; no failure operations.
  etcdserverpb::TxnRequest Combined() const;
  // Member `i`'s share of the answer to Combined() when it applied: the group's header,
  // succeeded, and the responses of member i's own operations.
  etcdserverpb::TxnResponse ShareOf(const etcdserverpb::TxnResponse& applied, int i) const;

 private:
  TxnLimits limits_;
  std::vector<const etcdserverpb::TxnRequest*> members_;
  absl::flat_hash_set<std::string> keys_;
  bool groupable_ = true;  // false when the one member cannot share the group
  int compares_ = 0;
  int operations_ = 0;
  size_t bytes_ = 0;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_TXN_GROUP_H_
