#include "scheduler/traffic/tier_index.h"

#include <algorithm>
#include <span>
#include <vector>

namespace topoplace::sched {
namespace {

// Accepts hosts one by one while they stay aligned with every host accepted before
// (TierIndex::aligned_gpus): per GPU position j and per compared field (the switch
// groups and the leaf), the value at j and the value at position 0 must pair one to one
// across all accepted hosts, and position j must have one rail and one NIC index.
// Negative field values are unique to their NIC (tiers the fabric lacks), so they pair
// with nothing and need no check; the others are small ids, looked up in dense tables.
class Alignment {
 public:
  explicit Alignment(std::span<const Attachment> nics) : nics_(nics) {}

  // The host's GPU count if it is accepted, else 0.
  int32_t Accept(const Fabric& fabric, const Host& host) {
    if (host.gpus.empty()) return 0;
    std::vector<NicId>& at = at_;  // scratch, kept across hosts to spare allocations
    std::vector<Position>& positions = host_positions_;
    at.clear();
    positions.clear();
    for (GpuId gpu : host.gpus) {
      const NicId n = GpuNic(fabric, host, gpu);
      if (n < 0 || nics_[n].domain[0] < 0) return 0;  // no network path to compare
      at.push_back(n);
      positions.push_back({nics_[n].rail, fabric.nics()[n].index});
    }
    const size_t known = std::min(positions.size(), positions_.size());
    if (!std::equal(positions.begin(), positions.begin() + known, positions_.begin())) return 0;
    if (tables_.size() < at.size() * kFields) tables_.resize(at.size() * kFields);
    for (int pass = 0; pass < 2; ++pass) {  // check all, then record all
      for (int f = 0; f < kFields; ++f) {
        const int32_t first = Field(nics_[at[0]], f);
        for (size_t j = 1; j < at.size(); ++j) {
          const int32_t value = Field(nics_[at[j]], f);
          if (first < 0 && value < 0) continue;  // both NIC-unique
          if (first < 0 || value < 0) return 0;
          Table& t = tables_[j * kFields + f];
          if (pass == 0 && !(Pairs(t.forward, first, value) && Pairs(t.backward, value, first))) {
            return 0;
          }
          if (pass == 1) {
            Record(t.forward, first, value);
            Record(t.backward, value, first);
          }
        }
      }
    }
    positions_.insert(positions_.end(), positions.begin() + known, positions.end());
    return static_cast<int32_t>(at.size());
  }

 private:
  struct Position {
    int32_t rail, index;
    bool operator==(const Position&) const = default;
  };
  // For one (position j, field): value at position 0 -> value at j, and back; -1 unpaired.
  struct Table {
    std::vector<int32_t> forward, backward;
  };
  static constexpr int kFields = kMaxSwitchTier + 1;
  static int32_t Field(const Attachment& a, int f) {
    return f < kMaxSwitchTier ? a.domain[f] : a.leaf;
  }
  // Whether `from` is unpaired or paired with `to`. Precondition: from >= 0.
  static bool Pairs(const std::vector<int32_t>& map, int32_t from, int32_t to) {
    return static_cast<size_t>(from) >= map.size() || map[from] < 0 || map[from] == to;
  }
  static void Record(std::vector<int32_t>& map, int32_t from, int32_t to) {
    if (static_cast<size_t>(from) >= map.size()) map.resize(from + 1, -1);
    map[from] = to;
  }

  std::span<const Attachment> nics_;
  std::vector<Position> positions_;
  std::vector<Table> tables_;             // index j * kFields + field
  std::vector<NicId> at_;                 // per GPU of the host being checked: its NIC
  std::vector<Position> host_positions_;  // and that NIC's rail and index
};

}  // namespace

TierIndex::TierIndex(const Fabric& fabric) : fabric_(fabric) {
  const int levels = fabric.max_tier();
  host_attachments_.reserve(fabric.hosts().size());
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    const Host& host = fabric.hosts()[h];
    host_attachments_.push_back(
        Attachment{{-1, -1, -1},
                   -1,
                   -1,
                   host.block,
                   host.pod,
                   host.nvlink_domain_id >= 0 ? host.nvlink_domain_id : -2 - h});
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
  gpu_leaves_.reserve(fabric.gpus().size());
  gpu_leaves_at_.reserve(fabric.hosts().size() + 1);
  for (const Host& host : fabric.hosts()) {
    gpu_leaves_at_.push_back(static_cast<int32_t>(gpu_leaves_.size()));
    for (GpuId gpu : host.gpus) {
      const NicId n = GpuNic(fabric, host, gpu);
      gpu_leaves_.push_back(n >= 0 ? nic_attachments_[n].leaf : -1);
    }
  }
  gpu_leaves_at_.push_back(static_cast<int32_t>(gpu_leaves_.size()));
  Alignment alignment(nic_attachments_);
  aligned_gpus_.reserve(fabric.hosts().size());
  for (const Host& host : fabric.hosts()) aligned_gpus_.push_back(alignment.Accept(fabric, host));
  std::vector<HostId> first_aligned(fabric.blocks().size(), -1);
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    const int32_t b = fabric.hosts()[h].block;
    if (b >= 0 && first_aligned[b] < 0 && aligned_gpus_[h] > 0) first_aligned[b] = h;
  }
  block_gpu_leaves_at_.reserve(fabric.blocks().size() + 1);
  for (HostId h : first_aligned) {
    block_gpu_leaves_at_.push_back(static_cast<int32_t>(block_gpu_leaves_.size()));
    if (h < 0) continue;
    const std::span<const SwitchId> leaves = gpu_leaves(h);
    block_gpu_leaves_.insert(block_gpu_leaves_.end(), leaves.begin(), leaves.end());
  }
  block_gpu_leaves_at_.push_back(static_cast<int32_t>(block_gpu_leaves_.size()));
}

std::unique_ptr<Attachment[]> TierIndex::Attach(std::span<const RankSlot> slots) const {
  // Every element is written below: skip the zeroing a vector would do.
  auto out = std::make_unique_for_overwrite<Attachment[]>(slots.size());
  for (size_t r = 0; r < slots.size(); ++r) out[r] = SlotAttachment(slots[r]);
  return out;
}

}  // namespace topoplace::sched
