#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/placement/engine.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

// superpod-4su: 4 blocks x 32 nodes x 8 GPUs, 8 rail leaves per block, shared spines.
const FabricPtr& Superpod() { return testing::Preset("superpod-4su"); }

// Health with the cable of `nic_name` ("host/nic") degraded.
FabricHealth DegradedCable(const Fabric& f, const char* nic_name) {
  FabricHealth health;
  const NicId nic = *f.FindNic(nic_name);
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    if (f.links()[l].a == NicEnd(nic) || f.links()[l].b == NicEnd(nic)) {
      health.degraded_links.insert(l);
    }
  }
  return health;
}

JobSpec Job(const std::string& spec) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  EXPECT_TRUE(job.ok()) << job.status();
  return *job;
}

absl::StatusOr<PlacementPlan> Place(const PlacementEngine& engine, const std::string& spec,
                                    const Occupancy& occ, const std::string& policy = "topoplace") {
  PlacementRequest req;
  req.job = Job(spec);
  req.policy = policy;
  return engine.Place(req, occ);
}

double DimTierBytes(const PlacementPlan& plan, Dim d, Tier t) {
  return plan.traffic.dim_tier_bytes[static_cast<int>(d)][static_cast<int>(t)];
}

TEST(Placement, EmptySuperpodTp8Pp4Dp8HasZeroSpineBytes) {
  PlacementEngine engine(Superpod());
  absl::StatusOr<PlacementPlan> plan =
      Place(engine, "tp=8,pp=4,dp=8,model=70b", Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  // 256 GPUs = 32 nodes = exactly one block: DP and PP stay on the block's rail leaves.
  EXPECT_EQ(plan->footprint.blocks_used, 1);
  EXPECT_EQ(plan->traffic.spine_bytes(), 0);
  EXPECT_EQ(plan->spine_bytes_lower_bound, 0);
  EXPECT_EQ(plan->traffic.max_hops, 1);
  // TP never leaves the node: 256 ranks x 75,161,927,680 B (see traffic_model_test).
  EXPECT_DOUBLE_EQ(DimTierBytes(*plan, Dim::kTp, Tier::kNvlink), 256 * 75161927680.0);
  EXPECT_EQ(plan->traffic.cross_rail_bytes, 0);
}

TEST(Placement, JobLargerThanABlockCrossesBlocksOnlyAtPpBoundaries) {
  PlacementEngine engine(Superpod());
  // 175B, tp=8, pp=8, dp=8: 512 GPUs = 64 nodes = 2 blocks; a stage is 8 nodes.
  absl::StatusOr<PlacementPlan> plan =
      Place(engine, "tp=8,pp=8,dp=8,model=175b", Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->footprint.blocks_used, 2);
  EXPECT_EQ(DimTierBytes(*plan, Dim::kDp, Tier::kSpine), 0);
  EXPECT_EQ(DimTierBytes(*plan, Dim::kTp, Tier::kSpine), 0);
  // Exactly one stage boundary crosses: 8 nodes x 8 GPUs = 64 pairs, both directions, each
  // m * b*s*h/t * 2 B = 8 * 2048 * 12288 / 8 * 2 = 50,331,648 B.
  EXPECT_DOUBLE_EQ(DimTierBytes(*plan, Dim::kPp, Tier::kSpine), 64 * 2 * 50331648.0);
  EXPECT_DOUBLE_EQ(plan->traffic.spine_bytes(), 64 * 2 * 50331648.0);
  // ... which is also the lower bound: 2 blocks needed, lambda = one stage cut.
  EXPECT_DOUBLE_EQ(plan->spine_bytes_lower_bound, plan->traffic.spine_bytes());
  // Every DP group is inside one block; PP groups touch at most 2.
  EXPECT_EQ(plan->traffic.spread[static_cast<int>(Dim::kDp)].max_blocks, 1);
  EXPECT_EQ(plan->traffic.spread[static_cast<int>(Dim::kPp)].max_blocks, 2);
}

TEST(Placement, KeepsDpGroupsInBlockUnderBackgroundLoad) {
  PlacementEngine engine(Superpod());
  // Blocks 0 and 1 keep 24 and 20 free nodes; 2 and 3 are full. tp=8,pp=5,dp=8 = 40 nodes,
  // stages of 8 nodes: 3 stages fit block 0, 2 fit block 1 -> no DP ring is split.
  Occupancy occ(*Superpod());
  for (int b = 0; b < 4; ++b) {
    const std::vector<HostId>& hosts = Superpod()->blocks()[b].hosts;
    const int busy = b == 0 ? 8 : b == 1 ? 12 : 32;
    for (int i = 0; i < busy; ++i) occ.SetHost(hosts[i], true);
  }
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=5,dp=8,model=70b", occ);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->traffic.spread[static_cast<int>(Dim::kDp)].max_blocks, 1);
  EXPECT_EQ(DimTierBytes(*plan, Dim::kDp, Tier::kSpine), 0);
  EXPECT_GT(DimTierBytes(*plan, Dim::kPp, Tier::kSpine), 0);
}

TEST(Placement, ExcludedHostsAreNeverChosen) {
  PlacementEngine engine(Superpod());
  // Exclude 3 hosts of block 0; a 32-node job can then not use block 0 at all.
  absl::StatusOr<PlacementPlan> plan =
      Place(engine, "tp=8,pp=4,dp=8,exclude=b00-n000,b00-n007,b00-n031", Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (HostId h : plan->node_hosts) {
    EXPECT_NE(Superpod()->hosts()[h].block, 0) << Superpod()->hosts()[h].name;
  }
  EXPECT_EQ(plan->traffic.spine_bytes(), 0);
}

TEST(Placement, HostsListIsTheOnlyChoiceEvenAcrossBlocks) {
  PlacementEngine engine(Superpod());
  // The nodes another scheduler chose, one of them in another block: the plan maps the
  // ranks onto exactly these (soft: the block tier is relaxed with a note), and a list too
  // short for the job does not fit.
  const std::vector<std::string> chosen = {"b00-n003", "b00-n009", "b03-n001", "b00-n020"};
  absl::StatusOr<PlacementPlan> plan =
      Place(engine, "tp=8,pp=2,dp=2,max_tier=block,mode=soft,hosts=" + absl::StrJoin(chosen, ","),
            Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<std::string> used;
  for (HostId h : plan->node_hosts) used.push_back(Superpod()->hosts()[h].name);
  EXPECT_THAT(used, ::testing::UnorderedElementsAreArray(chosen));
  EXPECT_EQ(Place(engine, "tp=8,pp=2,dp=2,hosts=b00-n003,b00-n009,b03-n001", Occupancy(*Superpod()))
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(Placement, UnhealthyHostsSwitchesAndLinksAreNeverChosen) {
  const Fabric& f = *Superpod();
  FabricHealth health;
  health.unhealthy_hosts.insert(*f.FindHost("b01-n005"));
  health.unhealthy_switches.insert(*f.FindSwitch("leaf-b02-r3"));  // all of block 2
  // The cable of b3-n010's rail-0 NIC is down.
  const NicId nic = *f.FindNic("b03-n010/mlx5_0");
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    const Link& link = f.links()[l];
    if (link.a == NicEnd(nic) || link.b == NicEnd(nic)) health.unhealthy_links.insert(l);
  }
  PlacementEngine engine(Superpod(), health);
  // 120 nodes: every healthy host except 5 (128 - 1 - 32 - 1 = 94 < 120 -> cannot fit).
  absl::StatusOr<PlacementPlan> too_big = Place(engine, "tp=8,pp=15,dp=8", Occupancy(f));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(too_big.status().message()), HasSubstr("34 unhealthy"));
  // 88 nodes fit in the 94 healthy hosts; none of the bad ones is used.
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=11,dp=8", Occupancy(f));
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::set<HostId> used(plan->node_hosts.begin(), plan->node_hosts.end());
  EXPECT_FALSE(used.contains(*f.FindHost("b01-n005")));
  EXPECT_FALSE(used.contains(*f.FindHost("b03-n010")));
  for (HostId h : used) EXPECT_NE(f.hosts()[h].block, 2) << f.hosts()[h].name;
}

TEST(Placement, AvoidsABlockWithADegradedLinkWhenAnotherFits) {
  const Fabric& f = *Superpod();
  PlacementEngine engine(Superpod(), DegradedCable(f, "b00-n004/mlx5_2"));
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=4,dp=8", Occupancy(f));
  ASSERT_TRUE(plan.ok()) << plan.status();
  // Block 0 would be first by id; its degraded host costs link-health 5 * 1/32.
  EXPECT_NE(f.hosts()[plan->node_hosts[0]].block, 0);
}

// Inside the block it chooses, topoplace takes hosts whose NIC cables are all healthy
// before one with a degraded cable; with every cable healthy it takes them in host order.
TEST(Placement, TopoplaceTakesHostsWithHealthyCablesFirstInsideTheBlock) {
  const Fabric& f = *Superpod();
  const PlacementEngine engine(Superpod(), DegradedCable(f, "b00-n001/mlx5_3"));
  const auto names = [&](const PlacementPlan& plan) {
    std::vector<std::string> out;
    for (HostId h : plan.node_hosts) out.push_back(f.hosts()[h].name);
    std::sort(out.begin(), out.end());
    return out;
  };
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=1,dp=4,model=7b", Occupancy(f));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(names(*plan), ::testing::ElementsAre("b00-n000", "b00-n002", "b00-n003", "b00-n004"));
  EXPECT_EQ(plan->footprint.degraded_hosts, 0);
  absl::StatusOr<PlacementPlan> healthy =
      Place(PlacementEngine(Superpod()), "tp=8,pp=1,dp=4,model=7b", Occupancy(f));
  ASSERT_TRUE(healthy.ok()) << healthy.status();
  EXPECT_THAT(names(*healthy),
              ::testing::ElementsAre("b00-n000", "b00-n001", "b00-n002", "b00-n003"));
}

// A job that must span blocks (80 nodes: more than one block of 32) leaves out the block
// whose spine uplink is degraded when the other blocks can hold it; without the health
// problem that block (block 0, first by id) is one of those it spans.
TEST(Placement, MultiBlockJobLeavesOutABlockWithADegradedUplink) {
  const Fabric& f = *Superpod();
  const std::string spec = "tp=8,pp=10,dp=8";
  absl::StatusOr<PlacementPlan> healthy = Place(PlacementEngine(Superpod()), spec, Occupancy(f));
  ASSERT_TRUE(healthy.ok()) << healthy.status();
  const auto blocks_of = [&](const PlacementPlan& plan) {
    std::set<int32_t> blocks;
    for (HostId h : plan.node_hosts) blocks.insert(f.hosts()[h].block);
    return blocks;
  };
  ASSERT_TRUE(blocks_of(*healthy).contains(0));
  FabricHealth health;
  const SwitchId leaf = *f.FindSwitch("leaf-b00-r0");
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    const Link& link = f.links()[l];
    const Endpoint end{Endpoint::Kind::kSwitch, leaf};
    const bool uplink =
        link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch;
    if (uplink && (link.a == end || link.b == end)) {
      health.degraded_links.insert(l);
      break;
    }
  }
  ASSERT_EQ(health.degraded_links.size(), 1u);
  absl::StatusOr<PlacementPlan> plan =
      Place(PlacementEngine(Superpod(), health), spec, Occupancy(f));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(blocks_of(*plan).contains(0));
  EXPECT_THAT(plan->how, HasSubstr("leaving out blocks with down or degraded uplinks"));
  EXPECT_EQ(plan->traffic.spine_bytes(), healthy->traffic.spine_bytes());
}

TEST(Placement, PrefersThePartlyUsedBlock) {
  PlacementEngine engine(Superpod());
  Occupancy occ(*Superpod());
  for (int i = 0; i < 16; ++i) occ.SetHost(Superpod()->blocks()[2].hosts[i], true);
  // 16 nodes fit anywhere; block 2 has exactly 16 free (best fit), and filling it leaves
  // blocks 0, 1 and 3 whole: fragmentation -1 instead of +1.
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=2,dp=8", occ);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (HostId h : plan->node_hosts) EXPECT_EQ(Superpod()->hosts()[h].block, 2);
  EXPECT_EQ(plan->footprint.fragmentation_delta(), -1);
}

TEST(Placement, SubNodeJobTakesTheFirstHostWithRoomAndKeepsWholeHostsFree) {
  PlacementEngine engine(Superpod());
  const Fabric& fabric = *Superpod();
  Occupancy occ(fabric);
  // Block 0's first host has 2 GPUs free; block 1 is full but for one whole free host, so
  // it is the block with the fewest hosts that fit (what best fit by blocks would take).
  const HostId partial = fabric.blocks()[0].hosts[0];
  for (int g = 0; g < 6; ++g) occ.Set(fabric.hosts()[partial].gpus[g], true);
  const std::vector<HostId>& block1 = fabric.blocks()[1].hosts;
  for (size_t i = 1; i < block1.size(); ++i) occ.SetHost(block1[i], true);
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=2,pp=1,dp=1,gpus_per_node=2", occ);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->node_hosts.size(), 1u);
  EXPECT_EQ(plan->node_hosts[0], partial);  // not block 1's last whole host
  EXPECT_THAT(plan->how, HasSubstr("first host in fabric order with room"));
}

TEST(Placement, TopoplaceKeepsASubNodeJobsNodesOnOneRailWhereHostOrderWouldNot) {
  PlacementEngine engine(Superpod());
  const Fabric& fabric = *Superpod();
  Occupancy occ(fabric);
  // Block 0 (the tightest) has three hosts with room: the first and third with GPUs 4-7
  // free, the second whole (its first free GPUs are 0-3); every other host of it is busy.
  const std::vector<HostId>& block0 = fabric.blocks()[0].hosts;
  for (int g = 0; g < 4; ++g) {
    occ.Set(fabric.hosts()[block0[0]].gpus[g], true);
    occ.Set(fabric.hosts()[block0[2]].gpus[g], true);
  }
  for (size_t i = 3; i < block0.size(); ++i) occ.SetHost(block0[i], true);
  const std::string spec = "tp=4,pp=1,dp=2,gpus_per_node=4,model=7b";
  absl::StatusOr<PlacementPlan> plan = Place(engine, spec, occ);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->node_hosts, (std::vector<HostId>{block0[0], block0[2]}));
  EXPECT_EQ(plan->traffic.cross_rail_bytes, 0);
  EXPECT_THAT(plan->how, HasSubstr("rail-matched"));
  // Host order, as first-fit takes it, pairs GPUs 4-7 with 0-3: every DP hop crosses rails.
  absl::StatusOr<PlacementPlan> first = Place(engine, spec, occ, "first-fit");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->node_hosts, (std::vector<HostId>{block0[0], block0[1]}));
  EXPECT_GT(first->traffic.cross_rail_bytes, 0);
}

TEST(Placement, JobThatCannotFitIsResourceExhaustedSayingWhy) {
  PlacementEngine engine(Superpod());
  // 2048 GPUs = 256 nodes on a 128-node fabric.
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=8,dp=32", Occupancy(*Superpod()));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("needs 256 nodes"));
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("128 of the fabric's 128 hosts have them"));
  // How close it came, at each level (scheduler/framework/wait_reason.h).
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("; room for 256 nodes of 8 GPUs: largest free block: 256 GPUs"));
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("cluster: 1024 GPUs (128 hosts; 128 short)"));
}

// A share of uplinks in use that is NaN or negative would reach sums and comparisons
// without a sound meaning: the request is turned down, naming the switch.
TEST(Placement, UplinkShareThatIsNaNOrNegativeIsInvalidNamingTheSwitch) {
  PlacementEngine engine(Superpod());
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), -0.5}) {
    PlacementRequest req;
    req.job = Job("tp=8,pp=2,dp=8");
    req.uplink_busy.assign(Superpod()->switches().size(), 0.25);
    req.uplink_busy[3] = bad;
    absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(*Superpod()));
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(plan.status().message()), HasSubstr("uplink_busy[3]"));
    req.uplink_busy[3] = 1.5;  // beyond capacity (oversubscribed) is a load like any other
    EXPECT_TRUE(engine.Place(req, Occupancy(*Superpod())).ok());
  }
}

TEST(Placement, HardMaxTierFailsAndSoftMaxTierRelaxesWithANote) {
  PlacementEngine engine(Superpod());
  absl::StatusOr<PlacementPlan> hard =
      Place(engine, "tp=8,pp=8,dp=8,max_tier=block", Occupancy(*Superpod()));
  ASSERT_FALSE(hard.ok());
  EXPECT_EQ(hard.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(hard.status().message()), HasSubstr("max_tier=block"));
  absl::StatusOr<PlacementPlan> soft =
      Place(engine, "tp=8,pp=8,dp=8,max_tier=block,mode=soft", Occupancy(*Superpod()));
  ASSERT_TRUE(soft.ok()) << soft.status();
  ASSERT_EQ(soft->notes.size(), 1u);
  EXPECT_THAT(soft->notes[0], HasSubstr("relaxed"));
}

// A hard tier is a promise to stay inside one domain of that tier, so a job that one such
// domain can hold must place, whatever the fabric's shape: one pod (superpod-4su,
// rail-28k), one block (rail-512), several pods (clos3-100k). Each tier gets the largest
// job its first domain holds on an empty fabric (tp = a host's GPUs: one node a DP rank).
TEST(Placement, EveryHardTierPlacesAJobItsFirstDomainCanHoldOnEveryPreset) {
  for (const std::string& preset : PresetNames()) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    const Fabric& fabric = **f;
    const int block_nodes = static_cast<int>(fabric.blocks()[0].hosts.size());
    int pod_nodes = 0;
    for (int32_t b : fabric.pods()[0].blocks) {
      pod_nodes += static_cast<int>(fabric.blocks()[b].hosts.size());
    }
    const PlacementEngine engine(*f);
    const size_t gpus = fabric.hosts()[0].gpus.size();
    const std::pair<const char*, int> cases[] = {
        {"leaf", block_nodes}, {"block", block_nodes}, {"pod", pod_nodes}, {"cluster", pod_nodes}};
    for (const auto& [tier, nodes] : cases) {
      const std::string spec = absl::StrCat("tp=", gpus, ",gpus_per_node=", gpus,
                                            ",pp=1,dp=", nodes, ",max_tier=", tier, ",mode=hard");
      absl::StatusOr<PlacementPlan> plan = Place(engine, spec, Occupancy(fabric));
      ASSERT_TRUE(plan.ok()) << preset << " " << spec << ": " << plan.status();
      EXPECT_EQ(plan->footprint.pods_used, 1) << preset << " " << spec;
      if (std::string(tier) == "leaf" || std::string(tier) == "block") {
        EXPECT_EQ(plan->footprint.blocks_used, 1) << preset << " " << spec;
      }
      EXPECT_TRUE(plan->notes.empty()) << preset << " " << spec << ": " << plan->notes[0];
    }
  }
}

// max_tier=nvlink is one NVLink domain: a multi-node NVLink workload (one IMEX domain, a
// Kubernetes ComputeDomain) runs inside one rack of trays or not at all; where NVLink stays
// inside each host, that is one host.
TEST(Placement, HardNvlinkTierKeepsTheJobInOneRackOrRefusesNamingTheDomain) {
  const FabricPtr& gb200 = testing::Preset("gb200-nvl72");  // racks of 18 trays x 4 GPUs
  PlacementEngine engine(gb200);
  absl::StatusOr<PlacementPlan> rack =
      Place(engine, "tp=4,gpus_per_node=4,pp=1,dp=16,max_tier=nvlink", Occupancy(*gb200));
  ASSERT_TRUE(rack.ok()) << rack.status();
  std::set<int32_t> domains;
  for (HostId h : rack->node_hosts) domains.insert(gb200->hosts()[h].nvlink_domain_id);
  EXPECT_EQ(domains.size(), 1u);
  // Kueue and KAI are asked for the NVLink-domain level of our exports.
  for (const char* policy : {"kueue-bestfit", "kai"}) {
    absl::StatusOr<PlacementPlan> plan =
        Place(engine, "tp=4,gpus_per_node=4,pp=1,dp=16,max_tier=nvlink", Occupancy(*gb200), policy);
    ASSERT_TRUE(plan.ok()) << policy << ": " << plan.status();
    domains.clear();
    for (HostId h : plan->node_hosts) domains.insert(gb200->hosts()[h].nvlink_domain_id);
    EXPECT_EQ(domains.size(), 1u) << policy;
  }
  for (const char* policy : {"first-fit", "random", "slurm-block"}) {
    absl::StatusOr<PlacementPlan> plan =
        Place(engine, "tp=4,gpus_per_node=4,pp=1,dp=16,max_tier=nvlink", Occupancy(*gb200), policy);
    if (!plan.ok()) {  // a baseline that proposes only hosts across racks is refused
      EXPECT_THAT(std::string(plan.status().message()), HasSubstr("max_tier=nvlink")) << policy;
      continue;
    }
    domains.clear();
    for (HostId h : plan->node_hosts) domains.insert(gb200->hosts()[h].nvlink_domain_id);
    EXPECT_EQ(domains.size(), 1u) << policy;
  }
  absl::StatusOr<PlacementPlan> too_big =
      Place(engine, "tp=4,gpus_per_node=4,pp=1,dp=19,max_tier=nvlink", Occupancy(*gb200));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(too_big.status().message()), HasSubstr("max_tier=nvlink"));
  absl::StatusOr<PlacementPlan> soft =
      Place(engine, "tp=4,gpus_per_node=4,pp=1,dp=19,max_tier=nvlink,mode=soft", Occupancy(*gb200));
  ASSERT_TRUE(soft.ok()) << soft.status();
  ASSERT_EQ(soft->notes.size(), 1u);
  EXPECT_THAT(soft->notes[0], HasSubstr("relaxed"));

  PlacementEngine superpod(Superpod());  // every host its own NVLink domain
  for (const char* policy : {"topoplace", "kueue-bestfit", "kai"}) {
    EXPECT_TRUE(
        Place(superpod, "tp=8,pp=1,dp=1,max_tier=nvlink", Occupancy(*Superpod()), policy).ok())
        << policy;
    absl::StatusOr<PlacementPlan> two =
        Place(superpod, "tp=8,pp=1,dp=2,max_tier=nvlink", Occupancy(*Superpod()), policy);
    ASSERT_FALSE(two.ok()) << policy;
    EXPECT_EQ(two.status().code(), absl::StatusCode::kResourceExhausted) << policy;
  }
  absl::StatusOr<PlacementPlan> two =
      Place(superpod, "tp=8,pp=1,dp=2,max_tier=nvlink", Occupancy(*Superpod()));
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("NVLink stays inside each host"));
}

// The case that found the single-pod bug: 40 nodes on superpod-4su (4 blocks of 32, one
// pod) fit the pod, so a hard max_tier=pod takes two blocks, as every baseline does.
TEST(Placement, HardPodTierOnASinglePodFabricSpansBlocksOfThatPod) {
  PlacementEngine engine(Superpod());
  absl::StatusOr<PlacementPlan> plan =
      Place(engine, "tp=8,pp=1,dp=40,max_tier=pod", Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->footprint.blocks_used, 2);
  EXPECT_EQ(plan->footprint.pods_used, 1);
  // Larger than the pod (which is the whole cluster here): refused, naming the tier.
  absl::StatusOr<PlacementPlan> too_big =
      Place(engine, "tp=8,pp=1,dp=129,max_tier=pod", Occupancy(*Superpod()));
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(Placement, BadRequestsAreInvalidArgument) {
  PlacementEngine engine(Superpod());
  EXPECT_EQ(Place(engine, "tp=8,pp=1,dp=1,exclude=nope", Occupancy(*Superpod())).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Place(engine, "tp=8,pp=1,dp=1,hosts=nope", Occupancy(*Superpod())).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Place(engine, "tp=8,pp=1,dp=1", Occupancy(*Superpod()), "best").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      Place(engine, "tp=8,pp=1,dp=2,gpus_per_node=16", Occupancy(*Superpod())).status().code(),
      absl::StatusCode::kInvalidArgument);  // hosts have 8 GPUs
}

TEST(Placement, RankMapKeepsTpInANodeAndEachGpuOnItsRailNic) {
  PlacementEngine engine(Superpod());
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=8,pp=2,dp=2", Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Fabric& f = *Superpod();
  ASSERT_EQ(plan->ranks.size(), 32u);
  for (int r = 0; r < 32; ++r) {
    const RankSlot& s = plan->ranks[r];
    EXPECT_EQ(s.host, plan->node_hosts[r / 8]);
    EXPECT_EQ(f.gpus()[s.gpu].index, r % 8);
    EXPECT_EQ(f.nics()[s.nic].rail, r % 8) << "rank " << r;
  }
}

// NCCL forwards cross-rail traffic over NVLink (PXN) by default, as the daemon and the CLI
// assume: then jobs whose TP groups fill half or a quarter of a node (their DP rings step
// from GPU 4 of one node to GPU 0 of the next, across rails) place on every preset,
// rail planes included.
TEST(Placement, Tp4AndTp2JobsPlaceOnEveryPresetWithRailLocalForwarding) {
  for (const std::string& preset : PresetNames()) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    const PlacementEngine engine(*f);
    const std::string gpus_per_node = absl::StrCat(",gpus_per_node=", (*f)->hosts()[0].gpus.size());
    for (const char* spec : {"tp=4,pp=4,dp=16,model=70b", "tp=2,pp=2,dp=32,model=7b"}) {
      PlacementRequest req;
      req.job = *ParseJobSpec(spec + gpus_per_node);
      req.routing.rail_local = true;
      absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(**f));
      ASSERT_TRUE(plan.ok()) << preset << " " << spec << ": " << plan.status();
      EXPECT_EQ(plan->traffic.unreachable_bytes, 0) << preset << " " << spec;
    }
  }
}

TEST(Placement, RailAwareRankMapKeepsDpAndPpPeersOnOneRailWhenTpIsSmallerThanANode) {
  absl::StatusOr<FabricPtr> rail = GeneratePreset("rail-28k");
  ASSERT_TRUE(rail.ok()) << rail.status();
  PlacementEngine engine(*rail);
  // tp=4: two TP groups per node; DP rings of 4 span two nodes a stage, PP four stages.
  absl::StatusOr<PlacementPlan> plan = Place(engine, "tp=4,pp=4,dp=4,model=70b", Occupancy(**rail));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->traffic.cross_rail_bytes, 0);
  const int tp = 4, dp = 4;
  for (size_t r = 0; r < plan->ranks.size(); ++r) {
    const int t = static_cast<int>(r) % tp;
    const int d = static_cast<int>(r) / tp % dp;
    // The DP ring's next member (within the stage) and the next stage's peer use the same
    // GPU index, hence the same rail, whenever they sit on another node.
    const size_t dp_next = r - static_cast<size_t>(d * tp) + static_cast<size_t>((d + 1) % dp * tp);
    for (size_t peer : {dp_next, r + static_cast<size_t>(tp * dp)}) {
      if (peer >= plan->ranks.size()) continue;
      const RankSlot& a = plan->ranks[r];
      const RankSlot& b = plan->ranks[peer];
      if (a.host == b.host) continue;
      EXPECT_EQ((*rail)->gpus()[a.gpu].index, (*rail)->gpus()[b.gpu].index) << r << " " << peer;
      EXPECT_EQ((*rail)->nics()[a.nic].rail, (*rail)->nics()[b.nic].rail) << r << " " << peer;
    }
    EXPECT_EQ((*rail)->gpus()[plan->ranks[r].gpu].index % tp, t);  // TP stays together
  }
  EXPECT_EQ(SnakeStageNodes(Job("tp=4,pp=4,dp=4")), 2);
  EXPECT_EQ(SnakeStageNodes(Job("tp=8,pp=4,dp=4")), 0);  // one TP group per node
  EXPECT_EQ(SnakeStageNodes(Job("tp=4,pp=4,dp=2")), 0);  // a stage is one node
}

TEST(Placement, ExplainListsEveryScorerAndAddsUpToTheCost) {
  PlacementEngine engine(Superpod());
  PlacementRequest req;
  req.job = Job("tp=8,pp=8,dp=8");
  req.weights = {{"fragmentation", 0.0}};
  absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->explain.size(), BuiltinPlugins().scorers().size());
  double sum = 0;
  for (size_t i = 0; i < plan->explain.size(); ++i) {
    const ScorerContribution& c = plan->explain[i];
    EXPECT_EQ(c.scorer, BuiltinPlugins().scorers()[i].name);
    EXPECT_GE(c.normalized, 0);
    EXPECT_LE(c.normalized, 1);
    EXPECT_DOUBLE_EQ(c.weighted, c.weight * c.normalized);
    sum += c.weighted;
  }
  EXPECT_DOUBLE_EQ(plan->cost, sum);
  EXPECT_EQ(plan->explain[3].scorer, "fragmentation");
  EXPECT_EQ(plan->explain[3].weight, 0);
  EXPECT_DOUBLE_EQ(plan->explain[0].raw, plan->traffic.spine_bytes());
}

// Every plan carries the job's predicted step time and its slowdown against the compact
// reference, whatever the policy: the number place --compare, the daemon, the console and
// the simulator all show.
TEST(Placement, EveryPlanCarriesItsPredictedStepAgainstTheCompactReference) {
  absl::StatusOr<FabricPtr> gb200 = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(gb200.ok()) << gb200.status();
  PlacementEngine engine(*gb200);
  PlacementRequest req;
  // Two 16-tray expert groups per stage: kept whole, each in one rack.
  req.job = Job("tp=4,pp=2,dp=8,ep=16,gpus_per_node=4,model=deepseek-v3");
  for (const char* policy : {"topoplace", "first-fit"}) {
    req.policy = policy;
    absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(**gb200));
    ASSERT_TRUE(plan.ok()) << policy << ": " << plan.status();
    const StepPrediction again = engine.steps().Predict(plan->job, plan->traffic, true);
    EXPECT_DOUBLE_EQ(plan->step.step_s, again.step_s) << policy;
    EXPECT_DOUBLE_EQ(plan->step.reference_s, again.reference_s) << policy;
    EXPECT_GT(plan->step.reference_s, 0) << policy;
    EXPECT_DOUBLE_EQ(plan->step.slowdown, std::max(1.0, plan->step.step_s / plan->step.reference_s))
        << policy;
    if (req.policy == "topoplace") {
      EXPECT_LT(plan->step.slowdown, 1.01);
    } else {  // host order straddles racks with expert groups
      EXPECT_GT(plan->step.slowdown, 1.03);
    }
  }
}

// The engine predicts with the comm model it was given (the simulator's --comm-scale).
TEST(Placement, ThePredictionUsesTheEnginesCommModel) {
  PlacementEngine calibrated(Superpod());
  CommModelOptions twice;
  twice.comm_scale = 2;
  PlacementEngine doubled(Superpod(), {}, BuiltinPlugins(), twice);
  PlacementRequest req;
  req.job = Job("tp=8,pp=4,dp=8");
  absl::StatusOr<PlacementPlan> a = calibrated.Place(req, Occupancy(*Superpod()));
  absl::StatusOr<PlacementPlan> b = doubled.Place(req, Occupancy(*Superpod()));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->node_hosts, b->node_hosts);
  EXPECT_GT(b->step.step_s, a->step.step_s);
  EXPECT_DOUBLE_EQ(b->step.step_s, doubled.steps().comm().StepSeconds(b->job, b->traffic));
}

// The step-time scorer reads the prediction the plan carries: raw its seconds per
// iteration, cost the share of them that is communication.
TEST(Placement, StepTimeScorerChargesTheCommunicationShareOfThePredictedStep) {
  PlacementEngine engine(Superpod());
  PlacementRequest req;
  req.job = Job("tp=8,pp=4,dp=8,model=70b");
  req.weights = {{"step-time", 1.0}};
  absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  const auto it = std::find_if(plan->explain.begin(), plan->explain.end(),
                               [](const ScorerContribution& c) { return c.scorer == "step-time"; });
  ASSERT_NE(it, plan->explain.end());
  EXPECT_DOUBLE_EQ(it->raw, plan->step.step_s);
  const double compute = engine.steps().comm().ComputeSeconds(plan->job);
  ASSERT_GT(plan->step.step_s, compute);
  EXPECT_DOUBLE_EQ(it->normalized, 1 - compute / plan->step.step_s);
  EXPECT_DOUBLE_EQ(it->weighted, it->normalized);
}

// The link-step scorer times the network part by the busiest cable, as the shared-link
// simulation times a job alone. A dense 32-tray job split 18 + 14 over two NVL72 racks
// (slurm-block's host order) sends two DP groups' gradients through the few NICs at the
// split; stage by stage, 16 + 16 (topoplace's), none. The per-job step-time model spreads
// those bytes over every rank and predicts the same step for both; the link-step scorer
// charges the split about what the simulation does (1.27x, FINDINGS.md).
TEST(Placement, LinkStepScorerChargesTheFewNicsARackSplitLoads) {
  const FabricPtr& fabric = testing::Preset("gb200-nvl72");
  PlacementEngine engine(fabric);
  PlacementRequest req;
  req.job =
      Job("tp=4,pp=4,dp=8,gpus_per_node=4,h=8192,s=4096,b=1,layers=80,params=7e+10,mb=8,"
          "dtype=bf16");
  req.weights = {{"link-step", 1.0}, {"step-time", 1.0}};
  const auto raw = [](const PlacementPlan& plan, absl::string_view scorer) {
    for (const ScorerContribution& c : plan.explain) {
      if (c.scorer == scorer) return c.raw;
    }
    return -1.0;
  };
  absl::StatusOr<PlacementPlan> split = engine.Place(
      [&] {
        PlacementRequest r = req;
        r.policy = "slurm-block";
        return r;
      }(),
      Occupancy(*fabric));
  absl::StatusOr<PlacementPlan> stages = engine.Place(req, Occupancy(*fabric));
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_TRUE(stages.ok()) << stages.status();
  ASSERT_EQ(split->footprint.nvlink_domains_used, 2);
  ASSERT_EQ(stages->footprint.nvlink_domains_used, 2);
  EXPECT_DOUBLE_EQ(raw(*split, "step-time"), raw(*stages, "step-time"))
      << "the per-job model cannot tell them apart";
  EXPECT_NEAR(raw(*split, "link-step") / raw(*stages, "link-step"), 1.27, 0.03);
  // Whole stages per rack send no DP byte off NVLink: the busiest cable carries only PP's
  // activations, which the step hides no more than the per-job model says.
  EXPECT_NEAR(raw(*stages, "link-step"), raw(*stages, "step-time"),
              0.01 * raw(*stages, "step-time"));
  const double compute = engine.steps().comm().ComputeSeconds(split->job);
  for (const ScorerContribution& c : split->explain) {
    if (c.scorer == "link-step") {
      EXPECT_DOUBLE_EQ(c.normalized, 1 - compute / c.raw);
    }
  }
}

// At weight 0 (the default) no candidate's links are walked, and the scorer says nothing
// rather than a step without its network part.
TEST(Placement, LinkStepScorerAtWeightZeroReadsNoLinksAndSaysNothing) {
  PlacementEngine engine(Superpod());
  PlacementRequest req;
  req.job = Job("tp=8,pp=4,dp=8,model=70b");
  absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(*Superpod()));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_GT(plan->traffic.network_bytes(), 0);
  const auto it = std::find_if(plan->explain.begin(), plan->explain.end(),
                               [](const ScorerContribution& c) { return c.scorer == "link-step"; });
  ASSERT_NE(it, plan->explain.end());
  EXPECT_EQ(it->weight, 0);
  EXPECT_EQ(it->raw, 0);
  EXPECT_EQ(it->normalized, 0);
}

}  // namespace
}  // namespace topoplace::sched
