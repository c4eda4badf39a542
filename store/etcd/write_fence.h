// What a store shared by replicas needs from leader election: the proof of leadership that
// every write carries, so that a replica that lost its lease cannot change anything even
// while it still believes it leads.
//
// A write transaction compares `key`'s create revision with `create_revision`: the key is
// deleted when the leader's lease ends and re-created by the next leader, so a stale
// leader's write fails in etcd itself.
#ifndef TOPOPLACE_STORE_ETCD_WRITE_FENCE_H_
#define TOPOPLACE_STORE_ETCD_WRITE_FENCE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace topoplace::store {

struct Fence {
  std::string key;
  int64_t create_revision = 0;  // of `key` when this replica won; its leadership's number
  // The lease `key` is bound to. With the revision it names one leadership even across an
  // etcd that was wiped (its revisions start again, its leases are new).
  int64_t lease = 0;
  bool operator==(const Fence& other) const = default;
};

class FenceSource {
 public:
  virtual ~FenceSource() = default;
  // The fence while this replica leads and its lease surely has not ended; Unavailable
  // naming the leader (or why there is none) otherwise.
  virtual absl::StatusOr<Fence> WriteFence() = 0;
  // Reports that etcd refused a write because `fence` no longer holds: this replica steps
  // down at once.
  virtual void FenceLost(const Fence& fence) = 0;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_WRITE_FENCE_H_
