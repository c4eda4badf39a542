// Flat copies of the few fabric fields the hot path reads per communicating pair, so that
// classifying a pair touches one small record per side instead of the fabric's wide
// records. Gives the same answers as Fabric::NicTier (tests compare them); built once per
// fabric.
//
//   TierIndex index(*fabric);
//   Tier t = index.NicTier(a, b);
//   const Attachment& at = index.SlotAttachment(slot);  // leaf, rail, block, pod, ...
//
// Immutable; thread-safe for readers. Holds a reference to the fabric.
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scheduler/mapping/rank_map.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Where one GPU's traffic meets the network: its NIC's switch groups and its host's
// coordinates, in one 32-byte record (two per cache line).
struct Attachment {
  // domain[k]: the tier-(k+1) switch group of the NIC's leaf; domain[2] is the group at
  // the fabric's top tier, so that sharing any tier >= 3 reads as core (groups nest).
  // Tiers the fabric lacks hold a value unique to the NIC, so they never match; all -1
  // for an uncabled NIC or a host without NICs.
  std::array<int32_t, kMaxSwitchTier> domain;
  int32_t rail, leaf;  // of the NIC; -1 when absent
  int32_t block, pod;  // of the host; -1 when absent
  // Equal for two GPUs exactly when they share an NVLink domain: the host's domain id, or
  // -2 - host for a host outside any domain.
  int32_t nvlink_key;
};
static_assert(sizeof(Attachment) == 32);

class TierIndex {
 public:
  explicit TierIndex(const Fabric& fabric);

  const Fabric& fabric() const { return fabric_; }
  const Attachment& nic(NicId n) const { return nic_attachments_[n]; }
  // The slot's NIC record, or its host's (no network) when the slot has no NIC.
  const Attachment& SlotAttachment(const RankSlot& s) const {
    return s.nic >= 0 ? nic_attachments_[s.nic] : host_attachments_[s.host];
  }
  // SlotAttachment of every slot, in slot order: gathered once per candidate plan and
  // read by both the traffic evaluation and the footprint.
  std::unique_ptr<Attachment[]> Attach(std::span<const RankSlot> slots) const;
  SwitchId nic_leaf(NicId n) const { return nic(n).leaf; }
  // The host's GPU count if the host is aligned, else 0. GPU j (local order) of every
  // aligned host sits on a cabled NIC with the same rail and NIC index, and GPU j of two
  // aligned hosts share a leaf or a switch group at some tier exactly when their GPUs 0
  // do. So on two aligned hosts, the g pairs (GPU j, GPU j) all classify like (GPU 0,
  // GPU 0), with rail-local forwarding or without, which lets a traffic walk classify
  // them once.
  int aligned_gpus(HostId h) const { return aligned_gpus_[h]; }
  int32_t host_nvlink(HostId h) const { return host_attachments_[h].nvlink_key; }
  // Per GPU of the host in local order, the leaf of the NIC it talks through (GpuNic),
  // or -1.
  std::span<const SwitchId> gpu_leaves(HostId h) const {
    return {gpu_leaves_.data() + gpu_leaves_at_[h],
            static_cast<size_t>(gpu_leaves_at_[h + 1] - gpu_leaves_at_[h])};
  }
  // gpu_leaves of the block's first aligned host (empty if it has none). Where the NICs
  // of one index in a block share a leaf (ClimbFacts::one_leaf_per_rail_per_block), every
  // aligned host of the block with as many GPUs has these leaves: a table of a few
  // kilobytes, read where a host's own entry would miss the cache.
  std::span<const SwitchId> block_gpu_leaves(int32_t block) const {
    return {block_gpu_leaves_.data() + block_gpu_leaves_at_[block],
            static_cast<size_t>(block_gpu_leaves_at_[block + 1] - block_gpu_leaves_at_[block])};
  }

  // Highest network tier between two attachments; kUnreachable if either has no cable or
  // they share no switch group. Ignores NVLink (compare nvlink_key for that).
  static Tier Between(const Attachment& a, const Attachment& b) {
    if (a.domain[0] < 0 || b.domain[0] < 0) return Tier::kUnreachable;
    for (int k = 0; k < kMaxSwitchTier; ++k) {
      if (a.domain[k] == b.domain[k]) return static_cast<Tier>(k + 1);
    }
    return Tier::kUnreachable;
  }
  // Highest tier between two NICs. Preconditions: valid NIC ids.
  Tier NicTier(NicId a, NicId b) const { return Between(nic(a), nic(b)); }

 private:
  const Fabric& fabric_;
  std::vector<Attachment> nic_attachments_;
  // Per host: nvlink_key, block and pod set; no NIC (domain and leaf -1).
  std::vector<Attachment> host_attachments_;
  std::vector<int32_t> aligned_gpus_;  // per host
  std::vector<SwitchId> gpu_leaves_;   // per host (from gpu_leaves_at_[h]), per GPU
  std::vector<int32_t> gpu_leaves_at_;
  std::vector<SwitchId> block_gpu_leaves_;  // per block (from block_gpu_leaves_at_[b])
  std::vector<int32_t> block_gpu_leaves_at_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_TIER_INDEX_H_
