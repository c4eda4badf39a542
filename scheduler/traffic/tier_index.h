// Flat copies of the few fabric fields the hot path reads per communicating pair (leaf
// domain ids per NIC, rail and leaf per NIC, NVLink domain, block and pod per host), so
// that classifying a pair touches small contiguous arrays instead of the fabric's wide
// records. Gives the same answers as Fabric::NicTier (tests compare them); built once per
// fabric.
//
//   TierIndex index(*fabric);
//   Tier t = index.NicTier(a, b);
//
// Immutable; thread-safe for readers. Holds a reference to the fabric.
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "topology/model/fabric.h"

namespace topoplace::sched {

class TierIndex {
 public:
  explicit TierIndex(const Fabric& fabric);

  const Fabric& fabric() const { return fabric_; }
  int32_t nic_rail(NicId n) const { return Record(n)[levels_]; }
  SwitchId nic_leaf(NicId n) const { return Record(n)[levels_ + 1]; }
  int32_t host_nvlink(HostId h) const { return host_nvlink_[h]; }
  int32_t host_block(HostId h) const { return host_block_[h]; }
  int32_t host_pod(HostId h) const { return host_pod_[h]; }

  // Highest tier between two NICs; kUnreachable if either is uncabled or they share no
  // switch group. Preconditions: valid NIC ids.
  Tier NicTier(NicId a, NicId b) const {
    const int32_t* da = Record(a);
    const int32_t* db = Record(b);
    if (levels_ == 0 || da[0] < 0 || db[0] < 0) return Tier::kUnreachable;
    for (int k = 0; k < levels_; ++k) {
      if (da[k] == db[k]) return static_cast<Tier>(std::min(k + 1, kMaxSwitchTier));
    }
    return Tier::kUnreachable;
  }

 private:
  // One contiguous record per NIC, so a pair costs one cache line per side:
  // [domain at tier 1 .. domain at tier levels_ (-1 if uncabled), rail, leaf].
  const int32_t* Record(NicId n) const {
    return &nic_records_[static_cast<size_t>(n) * (levels_ + 2)];
  }

  const Fabric& fabric_;
  int levels_ = 0;
  std::vector<int32_t> nic_records_;
  std::vector<int32_t> host_nvlink_, host_block_, host_pod_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_
