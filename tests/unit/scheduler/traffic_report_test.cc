#include "scheduler/traffic/traffic_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/mapping/rank_layout.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/placement/occupancy.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/tier_index.h"
#include "scheduler/traffic/traffic_model.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::sched {
namespace {

// How host b1-n1 of SmallFabric is wired; the other three hosts are straight.
enum class Wiring {
  kStraight,  // GPU i uses NIC i, NIC i on the block's rail-i leaf
  kCrossed,   // GPU 0 uses NIC 1 and GPU 1 uses NIC 0
  kUncabled,  // NIC 1 has no cable
  kSplit,     // NIC 1 on the other block's rail-1 leaf
};

// Two blocks of two 2-GPU hosts, one leaf per rail per block, two spines over all leaves.
FabricPtr SmallFabric(Wiring odd) {
  FabricBuilder b("small");
  LinkAttrs cable;
  cable.speed_gbps = 400;
  std::vector<SwitchId> spines, leaves;
  for (int s = 0; s < 2; ++s) spines.push_back(*b.AddSwitch(absl::StrCat("s", s)));
  for (int block = 0; block < 2; ++block) {
    for (int rail = 0; rail < 2; ++rail) {
      leaves.push_back(*b.AddSwitch(absl::StrCat("b", block, "-l", rail)));
      for (SwitchId s : spines)
        EXPECT_TRUE(b.AddLink(SwitchEnd(leaves.back()), SwitchEnd(s), cable).ok());
    }
  }
  for (int block = 0; block < 2; ++block) {
    for (int n = 0; n < 2; ++n) {
      const Wiring wiring = block == 1 && n == 1 ? odd : Wiring::kStraight;
      const HostId h = *b.AddHost(absl::StrCat("b", block, "-n", n));
      const NicId nics[2] = {*b.AddNic(h, "mlx5_0", 400), *b.AddNic(h, "mlx5_1", 400)};
      for (int rail = 0; rail < 2; ++rail) {
        if (wiring == Wiring::kUncabled && rail == 1) continue;
        const int leaf_block = wiring == Wiring::kSplit && rail == 1 ? 1 - block : block;
        EXPECT_TRUE(
            b.AddLink(NicEnd(nics[rail]), SwitchEnd(leaves[leaf_block * 2 + rail]), cable).ok());
      }
      for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(b.AddGpu(h, i, nics[wiring == Wiring::kCrossed ? 1 - i : i]).ok());
      }
    }
  }
  absl::StatusOr<FabricPtr> f = std::move(b).Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

std::vector<int> AlignedGpus(const Fabric& f) {
  const TierIndex index(f);
  std::vector<int> out;
  for (HostId h = 0; h < static_cast<HostId>(f.hosts().size()); ++h) {
    out.push_back(index.aligned_gpus(h));
  }
  return out;
}

TEST(TierIndex, AlignsEveryHostOfTheReferenceFabrics) {
  for (const char* preset : {"superpod-4su", "rail-512", "rail-28k", "clos3-100k"}) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    const std::vector<int> aligned = AlignedGpus(**f);
    for (HostId h = 0; h < static_cast<HostId>(aligned.size()); ++h) {
      ASSERT_EQ(aligned[h], static_cast<int>((*f)->hosts()[h].gpus.size()))
          << preset << " " << (*f)->hosts()[h].name;
    }
  }
}

TEST(TierIndex, LeavesOutHostsWhoseGpusDoNotLineUp) {
  // Host order: b0-n0, b0-n1, b1-n0, b1-n1 (the odd one).
  EXPECT_EQ(AlignedGpus(*SmallFabric(Wiring::kStraight)), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(AlignedGpus(*SmallFabric(Wiring::kCrossed)), (std::vector<int>{2, 2, 2, 0}));
  EXPECT_EQ(AlignedGpus(*SmallFabric(Wiring::kUncabled)), (std::vector<int>{2, 2, 2, 0}));
  EXPECT_EQ(AlignedGpus(*SmallFabric(Wiring::kSplit)), (std::vector<int>{2, 2, 2, 0}));
}

// The fields a placement is scored on, from a walk that classifies sibling pairs of
// aligned hosts once and from one that walks every pair (asking for the full network
// tally turns the shortcut off): they must agree bit for bit.
void ExpectSameReport(const TrafficReport& quick, const TrafficReport& full,
                      const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(quick.tier_bytes, full.tier_bytes);
  EXPECT_EQ(quick.dim_tier_bytes, full.dim_tier_bytes);
  EXPECT_EQ(quick.max_leaf_uplink_bytes, full.max_leaf_uplink_bytes);
  EXPECT_EQ(quick.network.leaf_up, full.network.leaf_up);
  EXPECT_EQ(quick.cross_rail_bytes, full.cross_rail_bytes);
  EXPECT_EQ(quick.unreachable_bytes, full.unreachable_bytes);
  EXPECT_EQ(quick.max_hops, full.max_hops);
  for (size_t d = 0; d < quick.spread.size(); ++d) {
    const GroupSpread& a = quick.spread[d];
    const GroupSpread& b = full.spread[d];
    EXPECT_EQ(a.groups, b.groups) << d;
    EXPECT_EQ(a.mean_leaves, b.mean_leaves) << d;
    EXPECT_EQ(a.mean_blocks, b.mean_blocks) << d;
    EXPECT_EQ(a.mean_pods, b.mean_pods) << d;
    EXPECT_EQ(a.max_leaves, b.max_leaves) << d;
    EXPECT_EQ(a.max_blocks, b.max_blocks) << d;
    EXPECT_EQ(a.max_pods, b.max_pods) << d;
  }
}

// Maps `spec` onto `nodes` hosts drawn at random from the free ones, so that pairs of
// every tier occur, and compares the two walks with and without rail-local forwarding.
void CompareWalks(const Fabric& fabric, const std::string& spec, uint64_t seed) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  const Occupancy free(fabric);
  std::vector<HostId> hosts;
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    if (static_cast<int>(fabric.hosts()[h].gpus.size()) >= job->gpus_per_node) hosts.push_back(h);
  }
  std::mt19937_64 rng(seed);
  std::shuffle(hosts.begin(), hosts.end(), rng);
  ASSERT_GE(hosts.size(), static_cast<size_t>(job->nodes())) << spec;
  hosts.resize(job->nodes());
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(fabric, *job, hosts, free);
  ASSERT_TRUE(slots.ok()) << slots.status();
  const TierIndex index(fabric);
  const std::unique_ptr<Attachment[]> attached = index.Attach(*slots);
  const std::span<const Attachment> attachments(attached.get(), slots->size());
  const RankLayout layout(*job);
  const TrafficModel traffic = BuildTrafficModel(*job);
  for (bool rail_local : {false, true}) {
    const Router router(index, {.rail_local = rail_local});
    const int g = job->gpus_per_node;
    ExpectSameReport(
        EvaluateTraffic(layout, traffic, *slots, attachments, router, g),
        EvaluateTraffic(layout, traffic, *slots, attachments, router, g, /*tally_network=*/true),
        absl::StrCat(fabric.name(), " ", spec, " seed ", seed, " rail_local ", rail_local));
  }
}

TEST(EvaluateTraffic, ClassifyingSiblingPairsOnceChangesNoScoredField) {
  for (Wiring odd : {Wiring::kStraight, Wiring::kCrossed, Wiring::kUncabled, Wiring::kSplit}) {
    FabricPtr f = SmallFabric(odd);
    for (const char* spec :
         {"tp=2,pp=2,dp=2,gpus_per_node=2", "tp=1,pp=4,dp=2,gpus_per_node=2",
          "tp=2,pp=1,dp=4,gpus_per_node=2", "tp=1,pp=2,dp=2,ep=2,gpus_per_node=2",
          "tp=1,pp=2,dp=2,gpus_per_node=1"}) {
      for (uint64_t seed = 1; seed <= 4; ++seed) CompareWalks(*f, spec, seed);
    }
  }
  for (const char* preset : {"superpod-4su", "rail-512", "clos3-100k"}) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    for (const char* spec :
         {"tp=8,pp=4,dp=8,model=70b", "tp=4,pp=4,dp=8,model=70b", "tp=8,pp=4,dp=4,ep=4,model=70b",
          "tp=2,cp=2,pp=2,dp=8,model=7b", "tp=8,pp=8,dp=4,order=tp-cp-ep-pp-dp,model=175b"}) {
      CompareWalks(**f, spec, 7);
    }
  }
}

}  // namespace
}  // namespace topoplace::sched
