#include "scheduler/mapping/rank_layout.h"

namespace topoplace::sched {

absl::string_view DimName(Dim dim) {
  switch (dim) {
    case Dim::kTp:
      return "tp";
    case Dim::kCp:
      return "cp";
    case Dim::kEp:
      return "ep";
    case Dim::kDp:
      return "dp";
    case Dim::kPp:
      return "pp";
  }
  return "?";
}

RankLayout::RankLayout(const JobSpec& job) {
  size_ = {job.tp, job.cp, job.ep, job.dp, job.pp};
  // Fastest first.
  const std::array<Dim, kNumDims> order =
      job.order == RankOrder::kTpCpEpDpPp
          ? std::array<Dim, kNumDims>{Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp}
          : std::array<Dim, kNumDims>{Dim::kTp, Dim::kCp, Dim::kEp, Dim::kPp, Dim::kDp};
  int stride = 1;
  for (Dim d : order) {
    stride_[static_cast<int>(d)] = stride;
    stride *= size(d);
  }
  world_size_ = stride;
}

}  // namespace topoplace::sched
