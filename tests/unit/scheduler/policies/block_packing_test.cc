#include "scheduler/policies/block_packing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "scheduler/framework/inventory.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/traffic/node_graph.h"
#include "scheduler/traffic/run_crossings.h"
#include "scheduler/traffic/traffic_model.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

std::vector<int> AmountsOf(const Takes& takes) {
  std::vector<int> out;
  for (const Take& t : takes) out.push_back(t.amount);
  return out;
}

// MakeCut's order is the one RunCrossings::GroupedBy counts layouts in: slots by their
// coordinate of the dimension (of their first rank), in node order within a coordinate.
TEST(BlockPacking, MakeCutOrdersSlotsByCoordinateThenByNode) {
  const FabricPtr fabric = *GeneratePreset("rail-512");
  const HealthView health(*fabric, FabricHealth{});
  for (const char* spec : {"tp=8,pp=4,dp=2,cp=2", "tp=4,pp=3,dp=6,ep=2,gpus_per_node=4",
                           "tp=8,pp=4,dp=3,order=tp-cp-ep-pp-dp", "tp=2,pp=5,dp=4,gpus_per_node=2",
                           "tp=8,pp=16,dp=8"}) {
    const JobSpec job = *ParseJobSpec(spec);
    const RankLayout layout(job);
    const TrafficModel traffic = BuildTrafficModel(job);
    const Inventory inv = *Inventory::Build(*fabric, Occupancy(*fabric), health, job);
    const int g = job.gpus_per_node;
    const PlacementContext ctx{*fabric, job, layout, traffic, inv, static_cast<int>(job.nodes())};
    for (Dim dim : kAllDims) {
      const std::optional<Cut> cut = MakeCut(ctx, dim);
      if (layout.size(dim) <= 1 || layout.stride(dim) % g != 0) {
        EXPECT_FALSE(cut) << spec << " " << DimName(dim);
        continue;
      }
      ASSERT_TRUE(cut) << spec << " " << DimName(dim);
      std::vector<int> expected(ctx.nodes);
      std::iota(expected.begin(), expected.end(), 0);
      std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) {
        return layout.Coord(a * g, dim) < layout.Coord(b * g, dim);
      });
      EXPECT_EQ(cut->node_order, expected) << spec << " " << DimName(dim);
      EXPECT_EQ(cut->unit, ctx.nodes / layout.size(dim)) << spec << " " << DimName(dim);
    }
  }
}

TEST(BlockPacking, TrimToUnitsSpendsTheSlackOnWholeUnitsPerBlock) {
  // Capacity 10 + 7 for a need of 12 in units of 4: greedy takes 10 + 2; trimmed, the
  // blocks give 8 + 4, both whole units, still 12 in all.
  const std::vector<int> cap = {10, 7};
  Takes takes = GreedyBestFit(cap, 12);
  ASSERT_EQ(takes.size(), 2u);
  TrimToUnits(takes, cap, 12, 4);
  int sum = 0;
  for (const Take& t : takes) {
    EXPECT_EQ(t.amount % 4, 0) << "block " << t.index << " gives " << t.amount;
    sum += t.amount;
  }
  EXPECT_EQ(sum, 12);
}

TEST(BlockPacking, TrimToUnitsWithoutSlackKeepsTheAmounts) {
  const std::vector<int> cap = {5, 7};
  Takes takes = GreedyBestFit(cap, 12);
  const std::vector<int> before = AmountsOf(takes);
  TrimToUnits(takes, cap, 12, 4);
  std::vector<int> after = AmountsOf(takes);
  std::sort(after.begin(), after.end());
  std::vector<int> sorted_before = before;
  std::sort(sorted_before.begin(), sorted_before.end());
  EXPECT_EQ(after, sorted_before);
}

TEST(BlockPacking, ChainResiduesPutsCleanBlocksFirstThenClosesEachOpenUnit) {
  // Units of 4: 8 is clean; 3 opens a unit that 1 closes exactly; then 2 and 2.
  Takes takes = {{0, 3}, {1, 2}, {2, 8}, {3, 1}, {4, 2}};
  ChainResidues(takes, 4);
  EXPECT_EQ(AmountsOf(takes), (std::vector<int>{8, 3, 1, 2, 2}));
}

// The chaining rule written the obvious way: clean takes first, then repeatedly the first
// take whose remainder closes the open unit, else the first of the largest remainder.
Takes PlainChainResidues(const Takes& takes, int unit) {
  Takes ordered, dirty;
  for (const Take& t : takes) (t.amount % unit == 0 ? ordered : dirty).push_back(t);
  int prefix = 0;
  while (!dirty.empty()) {
    const int want = (unit - prefix % unit) % unit;
    auto pick = std::find_if(dirty.begin(), dirty.end(),
                             [&](const Take& t) { return want != 0 && t.amount % unit == want; });
    if (pick == dirty.end()) {
      pick = std::max_element(dirty.begin(), dirty.end(), [unit](const Take& a, const Take& b) {
        return a.amount % unit < b.amount % unit;
      });
    }
    prefix += pick->amount;
    ordered.push_back(*pick);
    dirty.erase(pick);
  }
  return ordered;
}

// The rule TrimToUnits follows, written plainly: whole caps first, then the slack spent
// on the smallest remainders (stable), then what is left dropped from the smallest takes.
Takes PlainTrimToUnits(Takes takes, const std::vector<int>& cap, int need, int unit) {
  int slack = -need;
  for (Take& t : takes) {
    t.amount = cap[t.index];
    slack += t.amount;
  }
  std::vector<size_t> order(takes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return takes[a].amount % unit < takes[b].amount % unit;
  });
  for (size_t i : order) {
    const int r = takes[i].amount % unit;
    if (r > 0 && r <= slack) {
      takes[i].amount -= r;
      slack -= r;
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return takes[a].amount < takes[b].amount; });
  for (size_t i : order) {
    const int d = std::min(slack, takes[i].amount);
    takes[i].amount -= d;
    slack -= d;
  }
  std::vector<Take> kept;
  for (const Take& t : takes) {
    if (t.amount > 0) kept.push_back(t);
  }
  return Takes(kept.begin(), kept.end());
}

TEST(BlockPacking, TrimToUnitsAgreesWithThePlainRuleOnRandomSelections) {
  std::mt19937 random(9);
  for (int round = 0; round < 3000; ++round) {
    const int blocks = std::uniform_int_distribution<int>(1, round % 4 == 0 ? 150 : 30)(random);
    std::vector<int> cap(blocks);
    int total = 0;
    for (int& c : cap) {
      c = std::uniform_int_distribution<int>(0, 40)(random);
      total += c;
    }
    if (total == 0) continue;
    const int need = std::uniform_int_distribution<int>(1, total)(random);
    const int unit = std::uniform_int_distribution<int>(2, 16)(random);
    Takes takes = GreedyBestFit(cap, need);
    const Takes expected = PlainTrimToUnits(takes, cap, need, unit);
    TrimToUnits(takes, cap, need, unit);
    ASSERT_EQ(takes.size(), expected.size()) << "round " << round;
    for (size_t i = 0; i < takes.size(); ++i) {
      ASSERT_EQ(takes[i].index, expected[i].index) << "round " << round;
      ASSERT_EQ(takes[i].amount, expected[i].amount) << "round " << round;
    }
  }
}

TEST(BlockPacking, ChainResiduesAgreesWithThePlainRuleOnRandomTakes) {
  std::mt19937 random(5);
  for (int round = 0; round < 5000; ++round) {
    // Mostly small units and a few dozen takes; some huge units, some long lists.
    const int unit = std::uniform_int_distribution<int>(2, round % 5 == 0 ? 5000 : 17)(random);
    Takes takes(std::uniform_int_distribution<int>(0, round % 4 == 0 ? 100 : 30)(random));
    for (size_t i = 0; i < takes.size(); ++i) {
      takes[i] = {static_cast<int32_t>(i), std::uniform_int_distribution<int>(1, 3 * unit)(random)};
    }
    const Takes expected = PlainChainResidues(takes, unit);
    ChainResidues(takes, unit);
    ASSERT_EQ(takes.size(), expected.size());
    for (size_t i = 0; i < takes.size(); ++i) {
      ASSERT_EQ(takes[i].index, expected[i].index) << "round " << round << ", unit " << unit;
    }
  }
}

TEST(BlockPacking, ArrangeOrdersBlocksAsAsked) {
  GroupPick pick;
  pick.blocks = {7, 5, 9};
  pick.cap = {4, 4, 4};
  pick.amount = 6;
  pick.takes = {{2, 4}, {0, 2}};  // block 9 whole, then 2 from block 7
  const BlockSelection selection = {pick};
  EXPECT_EQ(Arrange(selection, 1, 1, Amounts::kGreedy, Order::kSelection),
            (BlockSequence{{9, 4}, {7, 2}}));
  EXPECT_EQ(Arrange(selection, 1, 1, Amounts::kGreedy, Order::kBlockId),
            (BlockSequence{{7, 2}, {9, 4}}));
  // Granules of 2 hosts: each take counts twice as many hosts.
  EXPECT_EQ(Arrange(selection, 2, 1, Amounts::kGreedy, Order::kSelection),
            (BlockSequence{{9, 8}, {7, 4}}));
}

// The multi-block search ranks layouts by RunCrossings over the cuts' orders: for every
// layout it can build (aligned by cut, hybrids in every amount and order, pods first or
// not, some blocks avoided), the count equals laying the sequence out slot by slot along
// the cut's node_order and walking the node graph. And every selection takes whole pods
// when by pod, the job's granules in all, and nothing from an avoided block.
TEST(BlockPacking, RunCountsEqualTheSlotBySlotBytesOfEveryLayoutTheSearchBuilds) {
  const FabricPtr fabric = *GeneratePreset("clos3-100k");
  const HealthView health(*fabric, FabricHealth{});
  std::vector<uint8_t> avoid(fabric->blocks().size(), 0);
  for (size_t b = 0; b < avoid.size(); b += 3) avoid[b] = 1;
  int layouts = 0;
  for (const char* spec : {"tp=8,pp=8,dp=16,model=175b", "tp=8,pp=16,dp=64,model=405b",
                           "tp=4,pp=4,dp=16,gpus_per_node=4,model=70b"}) {
    const JobSpec job = *ParseJobSpec(spec);
    const RankLayout layout(job);
    const TrafficModel traffic = BuildTrafficModel(job);
    const int g = job.gpus_per_node;
    const int nodes = static_cast<int>(job.nodes());
    const NodeGraph graph = BuildNodeGraph(layout, traffic, g, nodes);
    const Occupancy occupancy = RandomBackgroundLoad(*fabric, 0.6, 3);
    const Inventory inv = *Inventory::Build(*fabric, occupancy, health, job);
    std::vector<std::pair<Cut, RunCrossings>> cuts;
    cuts.emplace_back(PlainCut({*fabric, job, layout, traffic, inv, nodes}),
                      *RunCrossings::InNodeOrder(graph));
    for (Dim dim : {Dim::kPp, Dim::kDp}) {
      const std::optional<Cut> cut = MakeCut({*fabric, job, layout, traffic, inv, nodes}, dim);
      ASSERT_TRUE(cut) << spec;
      cuts.emplace_back(*cut, *RunCrossings::GroupedBy(graph, layout, dim, g));
    }
    for (std::span<const uint8_t> avoided :
         {std::span<const uint8_t>(), std::span<const uint8_t>(avoid)}) {
      const PlacementContext ctx{*fabric, job, layout, traffic, inv, nodes, 1, {}, avoided};
      const Domain cluster{DomainLevel::kCluster, 0, inv.total_free()};
      for (const auto& [cut, crossings] : cuts) {
        for (bool by_pod : {true, false}) {
          std::vector<BlockSequence> seqs;
          for (int granule : {1, cut.unit}) {
            const std::optional<BlockSelection> selection =
                SelectBlocks(ctx, cluster, granule, by_pod);
            if (!selection) continue;  // units larger than any block's free hosts
            int taken = 0;
            for (const GroupPick& pick : *selection) {
              if (by_pod) {
                EXPECT_THAT(fabric->pods(),
                            testing::Contains(testing::Field(&Pod::blocks, pick.blocks)));
              }
              for (const Take& t : pick.takes) {
                EXPECT_EQ(avoided.empty() ? 0 : avoided[pick.blocks[t.index]], 0) << spec;
                taken += t.amount;
              }
            }
            EXPECT_EQ(taken * granule, nodes) << spec;
            for (Amounts amounts : {Amounts::kGreedy, Amounts::kUnitTrimmed}) {
              for (BlockSequence& seq : ArrangeEachOrder(*selection, granule, cut.unit, amounts)) {
                seqs.push_back(std::move(seq));
              }
            }
          }
          for (const BlockSequence& seq : seqs) {
            std::vector<int32_t> node_block(nodes, -1);
            size_t i = 0;
            for (const auto& [block, count] : seq) {
              for (int c = 0; c < count; ++c) node_block[cut.node_order[i++]] = block;
            }
            ASSERT_EQ(i, static_cast<size_t>(nodes));
            EXPECT_EQ(crossings.Bytes(seq), CrossBlockBytes(graph, node_block))
                << spec << " " << cut.name;
            ++layouts;
          }
        }
      }
    }
  }
  EXPECT_GT(layouts, 100);
}

// The multi-block search asks for every order at once; each must be Arrange's.
TEST(BlockPacking, ArrangeEachOrderGivesArrangesSequenceForEveryOrder) {
  std::mt19937 random(5);
  for (int round = 0; round < 500; ++round) {
    BlockSelection selection;
    const int groups = std::uniform_int_distribution<int>(1, 4)(random);
    for (int g = 0; g < groups; ++g) {
      GroupPick pick;
      const int blocks = std::uniform_int_distribution<int>(1, 12)(random);
      int total = 0;
      for (int b = 0; b < blocks; ++b) {
        pick.blocks.push_back(100 * g + b);
        pick.cap.push_back(std::uniform_int_distribution<int>(0, 20)(random));
        total += pick.cap.back();
      }
      if (total == 0) continue;
      pick.amount = std::uniform_int_distribution<int>(1, total)(random);
      pick.takes = GreedyBestFit(pick.cap, pick.amount);
      selection.push_back(std::move(pick));
    }
    const int unit = std::uniform_int_distribution<int>(1, 8)(random);
    const int granule = std::uniform_int_distribution<int>(1, 2)(random);
    for (Amounts amounts : {Amounts::kGreedy, Amounts::kUnitTrimmed}) {
      const auto seqs = ArrangeEachOrder(selection, granule, unit, amounts);
      for (size_t i = 0; i < kOrders.size(); ++i) {
        ASSERT_EQ(seqs[i], Arrange(selection, granule, unit, amounts, kOrders[i]))
            << "round " << round << ", order " << i;
      }
    }
  }
}

}  // namespace
}  // namespace topoplace::sched
