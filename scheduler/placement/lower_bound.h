// A lower bound on the spine bytes of any placement of a job, given the free capacity:
// no plan can do better, so `plan spine bytes / bound` says how close a plan is.
//
// If the job fits one block, the bound is 0. Otherwise it needs at least k blocks (the k
// freest blocks cover it, k-1 do not), its rank graph is split into k parts, and every part
// is cut off from the rest by at least the graph's edge connectivity lambda; each crossing
// edge borders two parts, so at least k * lambda / 2 bytes cross blocks, i.e. climb to the
// spine. The rank graph is the Cartesian product of the per-dimension graphs (TP/CP/DP
// rings, EP clique, PP path), whose edge connectivity is
//   lambda = min( sum_i delta_i , min_i lambda_i * prod_{j != i} n_j )
// (Xu and Yang, "Connectivity of Cartesian product graphs", Discrete Math. 306, 2006,
// extended to factors with uniform edge weights; checked against brute force in tests).
#ifndef TOPOPLACE_SCHEDULER_PLACEMENT_LOWER_BOUND_H_
#define TOPOPLACE_SCHEDULER_PLACEMENT_LOWER_BOUND_H_

#include "scheduler/framework/inventory.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

// Edge connectivity (minimum weighted cut, bytes per iteration both directions) of the
// job's rank communication graph. 0 for a single rank.
double RankGraphEdgeConnectivity(const RankLayout& layout, const TrafficModel& traffic);

// Fewest blocks whose eligible free hosts can hold `nodes`; 0 if even all cannot.
int MinBlocksNeeded(const Inventory& inv, int nodes);

// The bound described above.
double SpineBytesLowerBound(const RankLayout& layout, const TrafficModel& traffic,
                            const Inventory& inv, int nodes);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_PLACEMENT_LOWER_BOUND_H_
