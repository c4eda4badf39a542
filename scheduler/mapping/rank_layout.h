// Where each parallel dimension sits in the rank number. With Megatron's default order
// tp-cp-ep-dp-pp, rank = tp_i + t*(cp_i + c*(ep_i + e*(dp_i + d*pp_i))): TP is fastest, so a
// TP group is t consecutive ranks and one pipeline stage is a contiguous rank range.
//
//   RankLayout layout(job);
//   int next = layout.Neighbor(rank, Dim::kDp);  // ring successor in the DP group
#ifndef TOPOPLACE_SCHEDULER_MAPPING_RANK_LAYOUT_H_
#define TOPOPLACE_SCHEDULER_MAPPING_RANK_LAYOUT_H_

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::sched {

enum class Dim : uint8_t { kTp = 0, kCp = 1, kEp = 2, kDp = 3, kPp = 4 };
inline constexpr int kNumDims = 5;
inline constexpr std::array<Dim, kNumDims> kAllDims = {Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp,
                                                       Dim::kPp};
absl::string_view DimName(Dim dim);

// Immutable; cheap to copy.
class RankLayout {
 public:
  explicit RankLayout(const JobSpec& job);

  int world_size() const { return world_size_; }
  int size(Dim d) const { return size_[static_cast<int>(d)]; }
  int stride(Dim d) const { return stride_[static_cast<int>(d)]; }
  // The coordinate of `rank` along `d`, in [0, size(d)).
  int Coord(int rank, Dim d) const { return (rank / stride(d)) % size(d); }
  // The rank that differs from `rank` only in `d`, whose coordinate is `coord`.
  int WithCoord(int rank, Dim d, int coord) const {
    return rank + (coord - Coord(rank, d)) * stride(d);
  }
  // Ring successor of `rank` along `d` (wraps around).
  int Neighbor(int rank, Dim d) const { return WithCoord(rank, d, (Coord(rank, d) + 1) % size(d)); }

 private:
  int world_size_ = 1;
  std::array<int, kNumDims> size_{};
  std::array<int, kNumDims> stride_{};
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_MAPPING_RANK_LAYOUT_H_
