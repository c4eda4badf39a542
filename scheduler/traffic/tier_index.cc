#include "scheduler/traffic/tier_index.h"

#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace topoplace::sched {
namespace {

// Accepts hosts one by one while they stay aligned with every host accepted before
// (TierIndex::aligned_gpus): per GPU position j and per compared field (the switch
// groups and the leaf), the value at j and the value at position 0 must pair one to one
// across all accepted hosts, and position j must have one rail and one NIC index.
class Alignment {
 public:
  explicit Alignment(std::span<const Attachment> nics) : nics_(nics) {}

  // The host's GPU count if it is accepted, else 0.
  int32_t Accept(const Fabric& fabric, const Host& host) {
    if (host.gpus.empty()) return 0;
    std::vector<NicId> at;
    for (GpuId gpu : host.gpus) {
      const NicId n = GpuNic(fabric, host, gpu);
      if (n < 0 || nics_[n].domain[0] < 0) return 0;  // no network path to compare
      at.push_back(n);
    }
    for (size_t j = 0; j < at.size(); ++j) {
      const Position p{nics_[at[j]].rail, fabric.nics()[at[j]].index};
      if (j < positions_.size() && !(positions_[j] == p)) return 0;
    }
    for (int pass = 0; pass < 2; ++pass) {  // check all, then record all
      for (int f = 0; f < kFields; ++f) {
        const int32_t first = Field(nics_[at[0]], f);
        for (size_t j = 1; j < at.size(); ++j) {
          const int32_t value = Field(nics_[at[j]], f);
          const bool ok = Pairs(forward_, Key(f, j, first), value, pass == 1) &&
                          Pairs(backward_, Key(f, j, value), first, pass == 1);
          if (!ok) return 0;
        }
      }
    }
    for (size_t j = positions_.size(); j < at.size(); ++j) {
      positions_.push_back({nics_[at[j]].rail, fabric.nics()[at[j]].index});
    }
    return static_cast<int32_t>(at.size());
  }

 private:
  struct Position {
    int32_t rail, index;
    bool operator==(const Position&) const = default;
  };
  static constexpr int kFields = kMaxSwitchTier + 1;
  static int32_t Field(const Attachment& a, int f) {
    return f < kMaxSwitchTier ? a.domain[f] : a.leaf;
  }
  static int64_t Key(int field, size_t position, int32_t value) {
    return (static_cast<int64_t>(position * kFields + field) << 32) |
           static_cast<uint32_t>(value);
  }
  // Whether `key` maps to `value` or to nothing yet; with `record`, makes it map.
  static bool Pairs(absl::flat_hash_map<int64_t, int32_t>& map, int64_t key, int32_t value,
                    bool record) {
    if (record) {
      map.try_emplace(key, value);
      return true;
    }
    const auto it = map.find(key);
    return it == map.end() || it->second == value;
  }

  std::span<const Attachment> nics_;
  std::vector<Position> positions_;
  // (field, j, value at position 0) -> value at j, and back.
  absl::flat_hash_map<int64_t, int32_t> forward_, backward_;
};

}  // namespace

TierIndex::TierIndex(const Fabric& fabric) : fabric_(fabric) {
  const int levels = fabric.max_tier();
  host_attachments_.reserve(fabric.hosts().size());
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    const Host& host = fabric.hosts()[h];
    host_attachments_.push_back(Attachment{{-1, -1, -1},
                                           -1,
                                           -1,
                                           host.block,
                                           host.pod,
                                           host.nvlink_domain_id >= 0 ? host.nvlink_domain_id
                                                                      : -2 - h});
  }
  nic_attachments_.reserve(fabric.nics().size());
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    const Nic& nic = fabric.nics()[n];
    Attachment a = host_attachments_[nic.host];
    a.rail = nic.rail;
    a.leaf = nic.leaf;
    if (nic.leaf >= 0 && levels > 0) {
      for (int k = 0; k < kMaxSwitchTier; ++k) {
        // Below the top: the group at tier k+1; the last slot takes the top tier.
        const int tier = k + 1 < kMaxSwitchTier ? k + 1 : levels;
        // A NIC-unique negative value for tiers the fabric lacks (never -1, never shared).
        a.domain[k] = tier <= levels ? fabric.LeafDomain(nic.leaf, tier) : -2 - n;
      }
    }
    nic_attachments_.push_back(a);
  }
  Alignment alignment(nic_attachments_);
  aligned_gpus_.reserve(fabric.hosts().size());
  for (const Host& host : fabric.hosts()) aligned_gpus_.push_back(alignment.Accept(fabric, host));
}

std::unique_ptr<Attachment[]> TierIndex::Attach(std::span<const RankSlot> slots) const {
  // Every element is written below: skip the zeroing a vector would do.
  auto out = std::make_unique_for_overwrite<Attachment[]>(slots.size());
  for (size_t r = 0; r < slots.size(); ++r) out[r] = SlotAttachment(slots[r]);
  return out;
}

}  // namespace topoplace::sched
