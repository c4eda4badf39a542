// Per-iteration network volumes of a PTD-P job, from the analysis in Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
// SC'21 (sections 3.2-3.5), expressed per communicating pair so that routing can classify
// each pair by tier without ever enumerating all GPU pairs.
//
//   TrafficModel traffic = BuildTrafficModel(job);
//   double dp_edge = traffic.pair(Dim::kDp);  // bytes to the DP ring successor
#ifndef TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_MODEL_H_
#define TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_MODEL_H_

#include <array>

#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_layout.h"

namespace topoplace::sched {

// How each dimension communicates, which fixes which pairs carry bytes:
// ring all-reduce/ring exchange (tp, cp, dp): rank -> ring successor;
// all-to-all (ep): rank -> every other member; point-to-point chain (pp): rank <-> the
// same position in the adjacent stage, both directions.
enum class Pattern : uint8_t { kRing, kAllToAll, kChain };
Pattern PatternOf(Dim dim);

struct TrafficModel {
  // Bytes one rank sends per iteration to ONE peer of dimension d: its ring successor
  // (ring), each other member (all-to-all), or each adjacent-stage counterpart per
  // direction (chain). Zero when the dimension has size 1.
  std::array<double, kNumDims> pair_bytes{};
  // Bytes one rank sends per iteration to its ring successor in d besides d's own pattern:
  // the reduction of dense gradients inside an EP group (traffic_model.cc), so non-zero
  // only for EP. Included in per_rank_bytes, not in pair_bytes.
  std::array<double, kNumDims> ring_pair_bytes{};
  // Bytes one rank sends per iteration in dimension d (all peers together).
  std::array<double, kNumDims> per_rank_bytes{};
  // Sum over all ranks and dimensions: every byte the job sends per iteration.
  double total_bytes = 0;

  double pair(Dim d) const { return pair_bytes[static_cast<int>(d)]; }
  double ring_pair(Dim d) const { return ring_pair_bytes[static_cast<int>(d)]; }
};

// Builds the model from the job's shape, or from its explicit per-device bytes where given.
// Preconditions: ValidateJobSpec(job) is OK.
TrafficModel BuildTrafficModel(const JobSpec& job);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_TRAFFIC_TRAFFIC_MODEL_H_
