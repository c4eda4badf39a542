// How the topoplace policy lays a job that must span blocks over them: which blocks, how
// many hosts from each, and in which order the node slots fill them, so that block
// boundaries cut the cheap dimension (whole pipeline stages or whole DP-index columns per
// block) and as few blocks as possible are used.
//
//   std::optional<Cut> stages = MakeCut(ctx, Dim::kPp);              // units = stages
//   std::optional<BlockSequence> seq = ChooseBlocks(ctx, domain, stages->unit, stages->unit,
//                                                   /*by_pod=*/true, Amounts::kGreedy,
//                                                   Order::kSelection);
//   Candidate c = Materialize(ctx, *seq, *stages, "pp-aligned packing");
//
// Pure functions of their input; thread-safe.
#ifndef TOPOPLACE_SCHEDULER_POLICIES_BLOCK_PACKING_H_
#define TOPOPLACE_SCHEDULER_POLICIES_BLOCK_PACKING_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "scheduler/framework/domain_select.h"
#include "scheduler/framework/placement_policy.h"

namespace topoplace::sched {

// How node slots are laid out over the chosen blocks. Units are the node groups that
// should not be split across blocks; node_order lists node slots in packing order.
struct Cut {
  std::string name;
  int unit = 1;
  std::vector<int> node_order;
};

// Units = nodes sharing one coordinate of `dim`, so that block boundaries cut only `dim`'s
// groups (pp: pipeline stages, the boundary crosses PP links; dp: DP-index columns, the
// boundary crosses DP rings). nullopt unless each node holds a single coordinate of `dim`
// and `dim` has more than one.
std::optional<Cut> MakeCut(const PlacementContext& ctx, Dim dim);
// Nodes in rank order, no unit: what a rank-order launcher does with a host list.
Cut PlainCut(const PlacementContext& ctx);

// (block, hosts) in packing order. Short (a job spans a few dozen blocks at most: 8,192
// GPUs take 32 or more of clos3-100k's 32-host blocks), and the search builds a dozen or
// more per placement: kept inline up to 48.
using BlockSequence = absl::InlinedVector<std::pair<int32_t, int>, 48>;

// How much each chosen block gives: greedy best fit, or trimmed to whole units where the
// chosen blocks' spare room allows.
enum class Amounts { kGreedy, kUnitTrimmed };
// The order the chosen blocks are filled in: as selected, by block id, or chaining
// partial units across consecutive blocks (ChainResidues).
enum class Order { kSelection, kBlockId, kResidueChain };
inline constexpr std::array<Order, 3> kOrders = {Order::kSelection, Order::kBlockId,
                                                 Order::kResidueChain};

// Spends the slack of a greedy selection (full capacity of the chosen blocks minus the
// need) on trimming each block's amount to a multiple of `unit`, smallest remainders
// first, so that more block boundaries fall between units; the amounts still sum to
// `need`. Precondition: `takes` came from GreedyBestFit(cap, need).
void TrimToUnits(Takes& takes, std::span<const int> cap, int need, int unit);
// Clean blocks (whole units) first; then each next block is one whose remainder closes
// the open unit exactly, else the one with the largest remainder (the first such in
// `takes` order either way). Precondition: unit >= 1.
void ChainResidues(Takes& takes, int unit);

// True if `domain` spans several pods, so blocks may be chosen pod by pod.
bool MultiPod(const Fabric& fabric, const Domain& domain);

// The greedy part of a block choice: which groups (pods, or the whole domain) and, inside
// each, which blocks with how many granules. The amount and order variants only rework
// these takes, so one selection serves every variant and every cut.
struct GroupPick {
  std::vector<int32_t> blocks;  // the group's blocks
  std::vector<int> cap;         // free granules per block of the group
  int amount = 0;               // granules taken from the group
  Takes takes;                  // GreedyBestFit(cap, amount)
};
using BlockSelection = std::vector<GroupPick>;

// Selects blocks for the job in `domain`, taking only whole granules (of `granule` hosts)
// from a block and none from ctx.avoid_blocks, pods first when `by_pod`; nullopt if the
// domain cannot hold the job that way.
std::optional<BlockSelection> SelectBlocks(const PlacementContext& ctx, const Domain& domain,
                                           int granule, bool by_pod);
// The (block, hosts) sequence of `selection` under one amount and order variant.
BlockSequence Arrange(const BlockSelection& selection, int granule, int unit, Amounts amounts,
                      Order order);
// Arrange under every order of kOrders (in that order), each pick's amounts worked out once.
std::array<BlockSequence, kOrders.size()> ArrangeEachOrder(const BlockSelection& selection,
                                                           int granule, int unit, Amounts amounts);
// SelectBlocks, then Arrange.
std::optional<BlockSequence> ChooseBlocks(const PlacementContext& ctx, const Domain& domain,
                                          int granule, int unit, bool by_pod, Amounts amounts,
                                          Order order);

// The candidate that takes `seq`'s hosts (best fit inside each block) along `cut`.
Candidate Materialize(const PlacementContext& ctx, const BlockSequence& seq, const Cut& cut,
                      std::string how);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_BLOCK_PACKING_H_
