#include "scheduler/policies/topoplace_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "scheduler/framework/inventory.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/traffic/traffic_model.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

// What TopoplacePolicy::Propose sees for `spec` on `fabric` with `occupancy`, built as the
// engine builds it.
class Proposal {
 public:
  Proposal(const FabricPtr& fabric, const Occupancy& occupancy, const std::string& spec)
      : fabric_(fabric),
        job_(*ParseJobSpec(spec)),
        layout_(job_),
        traffic_(BuildTrafficModel(job_)),
        health_(*fabric, {}),
        inventory_(*Inventory::Build(*fabric, occupancy, health_, job_)) {}

  // `uplink_busy`: per switch, the share of its uplinks running jobs use (empty: unknown).
  absl::StatusOr<std::vector<Candidate>> Run(std::span<const double> uplink_busy = {}) const {
    const PlacementContext ctx{*fabric_, job_,       layout_,
                               traffic_, inventory_, static_cast<int>(job_.nodes()),
                               1,        uplink_busy};
    return TopoplacePolicy().Propose(ctx);
  }
  // The blocks a candidate's hosts are in, in first-use order.
  std::vector<int32_t> Blocks(const Candidate& c) const {
    std::vector<int32_t> blocks;
    for (HostId h : c.node_hosts) {
      const int32_t b = fabric_->hosts()[h].block;
      if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
    }
    return blocks;
  }

 private:
  FabricPtr fabric_;
  JobSpec job_;
  RankLayout layout_;
  TrafficModel traffic_;
  HealthView health_;
  Inventory inventory_;
};

FabricPtr Superpod() {
  static const FabricPtr* const fabric = new FabricPtr(*GeneratePreset("superpod-4su"));
  return *fabric;
}

// superpod-4su (4 blocks of 32 hosts) with free hosts per block: b0 10, b1 20, b2 32, b3 5.
Occupancy Background() {
  Occupancy occ(*Superpod());
  const int busy[] = {22, 12, 0, 27};
  for (int b = 0; b < 4; ++b) {
    for (int i = 0; i < busy[b]; ++i) occ.SetHost(Superpod()->blocks()[b].hosts[i], true);
  }
  return occ;
}

TEST(TopoplacePolicy, OneHostJobTakesTheFirstHostWithRoomInFabricOrder) {
  absl::StatusOr<std::vector<Candidate>> c =
      Proposal(Superpod(), Background(), "tp=8,pp=1,dp=1").Run();
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ((*c)[0].node_hosts[0], Superpod()->blocks()[0].hosts[22]);  // first free one
  EXPECT_THAT((*c)[0].how, HasSubstr("first host in fabric order"));
}

TEST(TopoplacePolicy, JobThatFitsABlockGetsTheThreeTightestBlocks) {
  const Proposal p(Superpod(), Background(), "tp=8,pp=8,dp=1");  // 8 nodes
  absl::StatusOr<std::vector<Candidate>> c = p.Run();
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->size(), 3u);
  // b3 (5 free) cannot hold it; then by free hosts: b0 (10), b1 (20), b2 (32).
  EXPECT_EQ(p.Blocks((*c)[0]), std::vector<int32_t>{0});
  EXPECT_EQ(p.Blocks((*c)[1]), std::vector<int32_t>{1});
  EXPECT_EQ(p.Blocks((*c)[2]), std::vector<int32_t>{2});
}

TEST(TopoplacePolicy, HardBlockTierNoBlockHoldsIsResourceExhaustedNamingTheFreestBlock) {
  absl::StatusOr<std::vector<Candidate>> c =
      Proposal(Superpod(), Background(), "tp=8,pp=5,dp=8,max_tier=block").Run();
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("needs 40 nodes in one block, the freest block has 32"));
}

TEST(TopoplacePolicy, SpanningJobUsesTheFewestBlocksWithWholeStagesAndAtMostTwoCandidates) {
  // 40 nodes in 5 pipeline stages of 8: the freest block (32) takes four whole stages,
  // the tightest that holds the fifth (b0, 10 free) takes it.
  const Proposal p(Superpod(), Background(), "tp=8,pp=5,dp=8");
  absl::StatusOr<std::vector<Candidate>> c = p.Run();
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_GE(c->size(), 1u);
  EXPECT_LE(c->size(), 2u);
  const std::vector<int32_t> blocks = p.Blocks((*c)[0]);
  EXPECT_EQ(std::set<int32_t>(blocks.begin(), blocks.end()), (std::set<int32_t>{0, 2}));
  for (const Candidate& cand : *c) {
    std::set<HostId> distinct(cand.node_hosts.begin(), cand.node_hosts.end());
    EXPECT_EQ(distinct.size(), 40u) << cand.how;
  }
}

// A hybrid layout whose amounts and order come out as an aligned layout's takes the very
// same hosts (on an idle superpod-4su, a 64-node job fills two whole blocks either way):
// it is not proposed twice. Over idle and random backgrounds and several job shapes, no
// two candidates take the same hosts, and some proposals still hold two.
TEST(TopoplacePolicy, NoTwoCandidatesTakeTheSameHosts) {
  int with_two = 0;
  for (const char* spec : {"tp=8,pp=4,dp=16,model=70b", "tp=8,pp=1,dp=128,order=tp-cp-ep-pp-dp",
                           "tp=8,pp=5,dp=8", "tp=8,pp=8,dp=6"}) {
    for (double load : {0.0, 0.3, 0.6}) {
      for (uint64_t seed : {7, 8, 9}) {
        if (load == 0 && seed != 7) continue;  // one idle cluster
        const Occupancy occ =
            load == 0 ? Occupancy(*Superpod()) : RandomBackgroundLoad(*Superpod(), load, seed);
        absl::StatusOr<std::vector<Candidate>> c = Proposal(Superpod(), occ, spec).Run();
        if (!c.ok()) continue;  // does not fit this background
        for (size_t i = 0; i < c->size(); ++i) {
          for (size_t j = 0; j < i; ++j) {
            EXPECT_NE((*c)[i].node_hosts, (*c)[j].node_hosts)
                << spec << " load " << load << " seed " << seed << ": " << (*c)[i].how
                << " takes the hosts of " << (*c)[j].how;
          }
        }
        with_two += c->size() >= 2 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(with_two, 0);
}

// Two pods of three blocks of 8 hosts, three tiers.
FabricPtr TwoPods() {
  ClosParams shape;
  shape.name = "two-pods";
  shape.tiers = 3;
  shape.pods = 2;
  shape.blocks_per_pod = 3;
  shape.nodes_per_block = 8;
  shape.cores = 2;
  return *GenerateClos(shape);
}

// The first busy[b] hosts of each block b busy.
Occupancy BusyHosts(const FabricPtr& fabric, const std::vector<int>& busy) {
  Occupancy occ(*fabric);
  for (size_t b = 0; b < busy.size(); ++b) {
    for (int i = 0; i < busy[b]; ++i) occ.SetHost(fabric->blocks()[b].hosts[i], true);
  }
  return occ;
}

// Hybrid layouts (which may split a unit across blocks) are built for the smallest
// fitting domain only. Pod 0 (blocks with 5, 5, 2 free hosts) is the tightest that holds
// a 12-node job of three 4-node stages (or four 3-node DP columns), but only by splitting
// them; pod 1 (4, 4, 5) holds it with whole stages, so it is tried for that aligned
// layout, and nothing else: no candidate is a hybrid of pod 1 or of the cluster.
TEST(TopoplacePolicy, HybridLayoutsComeFromTheSmallestFittingDomainOnly) {
  const FabricPtr fabric = TwoPods();
  const Occupancy occ = BusyHosts(fabric, {3, 3, 6, 4, 4, 3});
  absl::StatusOr<std::vector<Candidate>> c = Proposal(fabric, occ, "tp=8,pp=3,dp=4").Run();
  ASSERT_TRUE(c.ok()) << c.status();
  bool aligned_in_pod_1 = false;
  for (const Candidate& cand : *c) {
    aligned_in_pod_1 |= cand.how.find("whole units per block, in pod 1") != std::string::npos;
    if (cand.how.find("packing across blocks of") != std::string::npos) {
      EXPECT_THAT(cand.how, HasSubstr("of pod 0")) << cand.how;
    }
  }
  EXPECT_TRUE(aligned_in_pod_1) << "pod 1 no longer gives the aligned layout";
}

// Per switch of superpod-4su, the leaves of block `hot` at 0.9 of their uplinks and every
// other switch idle: that block alone is hotter than the mean.
std::vector<double> HotBlock(int hot) {
  std::vector<double> busy(Superpod()->switches().size(), 0.0);
  for (SwitchId leaf : Superpod()->blocks()[hot].leaves) busy[leaf] = 0.9;
  return busy;
}

// The candidates whose `how` says they leave out the hotter than average blocks.
std::vector<Candidate> LeavingOutHotBlocks(const std::vector<Candidate>& candidates) {
  std::vector<Candidate> out;
  for (const Candidate& c : candidates) {
    if (c.how.find("leaving out blocks with hotter than average uplinks") != std::string::npos) {
      out.push_back(c);
    }
  }
  return out;
}

// With the uplinks' load known, one more candidate leaves out the hot blocks, laid out
// like the plain search's cheapest candidate (the first): 40 nodes in five stages of 8,
// four in b2 and one in b0 without load; with b0 hot, four in b2 and one in b1, still
// whole stages per block, in the same domain.
TEST(TopoplacePolicy, TheCandidateLeavingOutHotBlocksKeepsTheCheapestLayout) {
  const Proposal p(Superpod(), Background(), "tp=8,pp=5,dp=8");
  const std::vector<double> busy = HotBlock(0);
  absl::StatusOr<std::vector<Candidate>> c = p.Run(busy);
  ASSERT_TRUE(c.ok()) << c.status();
  const std::vector<Candidate> cool = LeavingOutHotBlocks(*c);
  ASSERT_EQ(cool.size(), 1u);
  EXPECT_EQ(cool[0].how, c->front().how + ", leaving out blocks with hotter than average uplinks");
  const std::vector<int32_t> blocks = p.Blocks(cool[0]);
  EXPECT_EQ(std::set<int32_t>(blocks.begin(), blocks.end()), (std::set<int32_t>{1, 2}));
}

// A load known for the first switches only (up to block 0's last leaf) leaves every other
// switch idle: the same proposal as with the whole fabric's list.
TEST(TopoplacePolicy, ALoadListShorterThanTheSwitchesLeavesTheRestIdle) {
  const Proposal p(Superpod(), Background(), "tp=8,pp=5,dp=8");
  const std::vector<double> busy = HotBlock(0);
  const std::vector<SwitchId>& leaves = Superpod()->blocks()[0].leaves;
  const std::vector<double> shorter(
      busy.begin(), busy.begin() + *std::max_element(leaves.begin(), leaves.end()) + 1);
  ASSERT_LT(shorter.size(), busy.size());
  absl::StatusOr<std::vector<Candidate>> whole = p.Run(busy), part = p.Run(shorter);
  ASSERT_TRUE(whole.ok() && part.ok());
  ASSERT_EQ(part->size(), whole->size());
  for (size_t i = 0; i < part->size(); ++i) {
    EXPECT_EQ((*part)[i].how, (*whole)[i].how);
    EXPECT_EQ((*part)[i].node_hosts, (*whole)[i].node_hosts);
  }
  EXPECT_EQ(LeavingOutHotBlocks(*part).size(), 1u);
}

// Where the cheapest layout's domain cannot hold it on the cooler blocks, the same cut's
// whole units are sought in the domains after it, in the plain search's order, pods
// first or not by fewer bytes as the plain search weighs them. Two pods of three 8-host
// blocks; free hosts b0 8, b1 4, b2 4 | b3 8, b4 0, b5 0; 12 nodes in three stages of 4.
// Without load: two stages in b0 and one in b1, in pod 0 (the only pod that holds 12).
// With b0 hot, pod 0 holds 8 on its other blocks, so the stages go to the cluster: pods
// first would take b1, b2 and b3 (three blocks), not pods first b3 and b1 (two, fewer
// bytes). (Here the search over every layout finds the same; docs/report/FINDINGS.md
// has plans where they part.)
TEST(TopoplacePolicy, TheCheapestLayoutsUnitsMoveToTheNextDomainThatHoldsThem) {
  const FabricPtr fabric = TwoPods();
  const Occupancy occ = BusyHosts(fabric, {0, 4, 4, 0, 8, 8});
  std::vector<double> busy(fabric->switches().size(), 0.0);
  for (SwitchId leaf : fabric->blocks()[0].leaves) busy[leaf] = 0.9;
  const Proposal p(fabric, occ, "tp=8,pp=3,dp=4");
  absl::StatusOr<std::vector<Candidate>> c = p.Run(busy);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->front().how, "pp-aligned packing, whole units per block, in pod 0");
  const std::vector<Candidate> cool = LeavingOutHotBlocks(*c);
  ASSERT_EQ(cool.size(), 1u);
  EXPECT_EQ(cool[0].how,
            "pp-aligned packing, whole units per block, in the cluster, leaving out blocks with "
            "hotter than average uplinks");
  const std::vector<int32_t> blocks = p.Blocks(cool[0]);
  EXPECT_EQ(std::set<int32_t>(blocks.begin(), blocks.end()), (std::set<int32_t>{1, 3}));
}

// When the cooler blocks cannot hold the cheapest layout, every layout is tried on them.
// 35 nodes in five stages of 7: without load, four stages in b2 (32 free) and one in b0
// (10). With b2 hot, b0, b1 and b3 hold one, two and no whole stages (10, 20 and 5 free
// hosts), but 35 hosts: only a layout that splits stages fits there.
TEST(TopoplacePolicy, WhenTheCheapestLayoutDoesNotFitTheCoolerBlocksAnyLayoutMay) {
  const Proposal p(Superpod(), Background(), "tp=8,pp=5,dp=7");
  const std::vector<double> busy = HotBlock(2);
  absl::StatusOr<std::vector<Candidate>> c = p.Run(busy);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->front().how, HasSubstr("whole units per block"));
  const std::vector<Candidate> cool = LeavingOutHotBlocks(*c);
  ASSERT_EQ(cool.size(), 1u);
  EXPECT_THAT(cool[0].how, HasSubstr("packing across blocks of the cluster"));
  const std::vector<int32_t> blocks = p.Blocks(cool[0]);
  EXPECT_EQ(std::set<int32_t>(blocks.begin(), blocks.end()), (std::set<int32_t>{0, 1, 3}));
}

}  // namespace
}  // namespace topoplace::sched
