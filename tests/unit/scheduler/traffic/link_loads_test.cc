#include "scheduler/traffic/link_loads.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/placement/engine.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_paths.h"

namespace topoplace::sched {
namespace {

FabricPtr Preset(const std::string& name) {
  absl::StatusOr<FabricPtr> f = GeneratePreset(name);
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

PlacementPlan Place(const PlacementEngine& engine, const std::string& spec,
                    const Occupancy& occupancy, bool rail_local = false) {
  PlacementRequest req;
  req.job = *ParseJobSpec(spec);
  req.routing.rail_local = rail_local;
  req.link_loads = true;
  absl::StatusOr<PlacementPlan> plan = engine.Place(req, occupancy);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : PlacementPlan{};
}

// Bytes summed over the plan's links by the tier of their lower end (0: NIC cables,
// 1: leaf uplinks, 2: spine-to-core links).
struct Sums {
  std::map<int, double> up, down;
  std::map<int, int> links;
};

Sums SumByLowerTier(const Fabric& fabric, const PlacementPlan& plan) {
  Sums sums;
  for (const LinkLoad& l : plan.links) {
    const Link& link = fabric.links()[l.link];
    int lower = kMaxSwitchTier;
    for (const Endpoint& e : {link.a, link.b}) {
      lower = std::min(lower, e.kind == Endpoint::Kind::kNic ? 0 : fabric.switches()[e.id].tier);
    }
    sums.up[lower] += l.up_bytes;
    sums.down[lower] += l.down_bytes;
    ++sums.links[lower];
  }
  return sums;
}

double TierBytes(const PlacementPlan& plan, Tier t) {
  return plan.traffic.tier_bytes[static_cast<int>(t)];
}

// Every network byte crosses two NIC cables (up at the sender, down at the receiver);
// every byte that reaches the spine crosses a leaf uplink on each side; every core byte a
// spine-to-core link on each side.
void ExpectBytesConserved(const Fabric& fabric, const PlacementPlan& plan) {
  const Sums sums = SumByLowerTier(fabric, plan);
  const double network = plan.traffic.network_bytes();
  const double core = TierBytes(plan, Tier::kCore);
  const auto near = [](double total) { return 1e-9 * total + 1; };
  EXPECT_NEAR(sums.up.count(0) ? sums.up.at(0) : 0, network, near(network));
  EXPECT_NEAR(sums.down.count(0) ? sums.down.at(0) : 0, network, near(network));
  EXPECT_NEAR(sums.up.count(1) ? sums.up.at(1) : 0, plan.traffic.spine_bytes(), near(network));
  EXPECT_NEAR(sums.down.count(1) ? sums.down.at(1) : 0, plan.traffic.spine_bytes(), near(network));
  EXPECT_NEAR(sums.up.count(2) ? sums.up.at(2) : 0, core, near(network));
  EXPECT_NEAR(sums.down.count(2) ? sums.down.at(2) : 0, core, near(network));
}

TEST(LinkLoads, JobInOneBlockLoadsOnlyItsNicCables) {
  const FabricPtr f = Preset("superpod-4su");
  const PlacementEngine engine(f);
  const PlacementPlan plan = Place(engine, "tp=8,pp=4,dp=8,model=70b", Occupancy(*f));
  ASSERT_EQ(plan.traffic.spine_bytes(), 0);
  const Sums sums = SumByLowerTier(*f, plan);
  // 32 nodes x 8 rail NICs, each cable both ways (DP rings and PP stages go across nodes);
  // nothing above the leaves.
  EXPECT_EQ(sums.links.at(0), 32 * 8);
  EXPECT_EQ(sums.links.count(1), 0u);
  for (const LinkLoad& l : plan.links) {
    EXPECT_GT(l.up_bytes, 0);
    EXPECT_GT(l.down_bytes, 0);
  }
  ExpectBytesConserved(*f, plan);
}

TEST(LinkLoads, JobAcrossBlocksSpreadsEachLeafsBytesEvenlyOverItsUplinks) {
  const FabricPtr f = Preset("superpod-4su");
  const PlacementEngine engine(f);
  // 64 nodes: two blocks, the pipeline cut between them.
  const PlacementPlan plan = Place(engine, "tp=8,pp=8,dp=8,model=70b", Occupancy(*f));
  ASSERT_GT(plan.traffic.spine_bytes(), 0);
  ExpectBytesConserved(*f, plan);
  // Each loaded leaf has equal-speed uplinks: they all carry the same share.
  std::map<SwitchId, std::vector<double>> per_leaf;
  for (const LinkLoad& l : plan.links) {
    const Link& link = f->links()[l.link];
    if (link.a.kind == Endpoint::Kind::kNic || link.b.kind == Endpoint::Kind::kNic) continue;
    const SwitchId leaf = f->switches()[link.a.id].tier == 1 ? link.a.id : link.b.id;
    per_leaf[leaf].push_back(l.up_bytes);
  }
  ASSERT_FALSE(per_leaf.empty());
  for (const auto& [leaf, ups] : per_leaf) {
    EXPECT_EQ(ups.size(), f->switches().size() - 32) << "every spine, leaf " << leaf;
    for (double up : ups) EXPECT_DOUBLE_EQ(up, ups.front()) << "leaf " << leaf;
  }
}

TEST(LinkLoads, JobAcrossPodsLoadsSpineToCoreLinks) {
  const FabricPtr f = Preset("clos3-100k");
  const PlacementEngine engine(f);
  // 1,024 nodes: more than one pod holds (800).
  const PlacementPlan plan = Place(engine, "tp=8,pp=16,dp=64,model=405b", Occupancy(*f));
  ASSERT_GT(TierBytes(plan, Tier::kCore), 0);
  EXPECT_GT(SumByLowerTier(*f, plan).links.at(2), 0);
  ExpectBytesConserved(*f, plan);
}

TEST(LinkLoads, RailLocalForwardingSendsThroughTheDestinationRailsNic) {
  const FabricPtr f = Preset("rail-28k");
  const PlacementEngine engine(f);
  // A DP ring over 16 GPUs on 2 nodes in plain local order (the PP-before-DP rank order,
  // the same ranks with pp=1, leaves the rail-aware map out): the ring steps from GPU 7 of
  // one node to GPU 0 of the next, across rails. Rail planes have no path for that without
  // forwarding.
  const PlacementPlan plan = Place(engine, "tp=1,pp=1,dp=16,model=7b,order=tp-cp-ep-pp-dp",
                                   Occupancy(*f), /*rail_local=*/true);
  ASSERT_GT(plan.traffic.cross_rail_bytes, 0);
  ExpectBytesConserved(*f, plan);
  // Only the two rail-0 NIC cables receive; the senders are the rail-0 NICs too (GPU 7's
  // bytes hop over NVLink to GPU 0 first), so no other cable carries anything.
  ASSERT_EQ(plan.links.size(), 2u);
  for (const LinkLoad& l : plan.links) {
    const Link& link = f->links()[l.link];
    const NicId nic = link.a.kind == Endpoint::Kind::kNic ? link.a.id : link.b.id;
    EXPECT_EQ(f->nics()[nic].index, 0);
    EXPECT_EQ(l.up_bytes, l.down_bytes);
  }
}

TEST(LinkLoads, AreLeftOutUnlessAskedFor_TheRestOfThePlanIsTheSame) {
  const FabricPtr f = Preset("superpod-4su");
  const PlacementEngine engine(f);
  const Occupancy empty(*f);
  PlacementRequest req;
  req.job = *ParseJobSpec("tp=8,pp=8,dp=8,model=70b");
  absl::StatusOr<PlacementPlan> without = engine.Place(req, empty);
  req.link_loads = true;
  absl::StatusOr<PlacementPlan> with = engine.Place(req, empty);
  ASSERT_TRUE(without.ok() && with.ok());
  EXPECT_TRUE(without->links.empty());
  EXPECT_FALSE(with->links.empty());
  EXPECT_EQ(without->node_hosts, with->node_hosts);
  EXPECT_EQ(without->traffic.tier_bytes, with->traffic.tier_bytes);
  EXPECT_EQ(without->cost, with->cost);
}

// Hashed ECMP keeps every tier's bytes: only their split over parallel links changes.
TEST(LinkLoads, HashedEcmp_ConservesBytesPerTier) {
  for (const char* preset : {"superpod-4su", "clos3-100k"}) {
    const FabricPtr f = Preset(preset);
    const PlacementEngine engine(f);
    PlacementRequest req;
    req.job = *ParseJobSpec(std::string(preset) == "clos3-100k" ? "tp=8,pp=16,dp=64,model=405b"
                                                                : "tp=8,pp=8,dp=8,model=70b");
    req.link_loads = true;
    req.ecmp = {EcmpMode::kHash, 7};
    absl::StatusOr<PlacementPlan> plan = engine.Place(req, Occupancy(*f));
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_GT(plan->traffic.spine_bytes(), 0) << preset;
    ExpectBytesConserved(*f, *plan);
  }
}

// Seeds 0..15 under which the two flows below share an uplink (x) or not (.): the hash is
// part of the model's definition, so a change to it shows here.
constexpr char kCollisionsOfSeeds0To15[] = "xx.x.x..x.x...x.";

// Two blocks of two 2-GPU hosts with one NIC each, so one leaf per block, and `spines`
// spines: each leaf's 800 Gb/s of uplink is one 2-cable link to one spine, or one cable
// to each of two.
absl::StatusOr<FabricPtr> TwoLeafFabric(int spines) {
  ClosParams p;
  p.blocks_per_pod = 2;
  p.nodes_per_block = 2;
  p.gpus_per_node = 2;
  p.rails = 1;
  p.spines_per_pod = spines;
  return GenerateClos(p);
}

// Two leaves in different blocks, each with two uplinks (two spines), and two flows of
// 10 B from the first leaf to the second, written straight into the tally.
class HashedEcmpTwoFlows : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = TwoLeafFabric(2);
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    from_ = fabric_->blocks()[0].leaves[0];
    to_ = fabric_->blocks()[1].leaves[0];
    traffic_.network.flows = {{from_, to_, false, 10}, {from_, to_, false, 10}};
  }
  // Per uplink of `leaf`: {bytes up, bytes down}, by the spine it reaches.
  std::map<SwitchId, std::pair<double, double>> Uplinks(const LinkIndex& index,
                                                        const std::vector<LinkLoad>& loads,
                                                        SwitchId leaf) {
    std::map<SwitchId, std::pair<double, double>> per_spine;
    for (const LinkIndex::Uplink& u : index.uplinks(leaf)) {
      per_spine[u.upper] = {0, 0};
      for (const LinkLoad& l : loads) {
        if (l.link == u.link) per_spine[u.upper] = {l.up_bytes, l.down_bytes};
      }
    }
    return per_spine;
  }
  FabricPtr fabric_;
  SwitchId from_ = -1, to_ = -1;
  TrafficReport traffic_;
};

TEST_F(HashedEcmpTwoFlows, FluidSpreadsBothFlowsEvenly) {
  const LinkIndex index(*fabric_, {}, {});
  const std::vector<LinkLoad> loads = LinkLoads(index, {}, traffic_, {EcmpMode::kFluid, 0});
  // The fluid mode reads the per-leaf tallies, not the flows.
  EXPECT_TRUE(loads.empty());
}

TEST_F(HashedEcmpTwoFlows, EachFlowTakesOneWholePathAndSomeSeedsCollide) {
  const LinkIndex index(*fabric_, {}, {});
  ASSERT_EQ(index.uplinks(from_).size(), 2u);
  int collisions = 0;
  std::string pattern;
  for (int seed = 0; seed < 64; ++seed) {
    const std::vector<LinkLoad> loads =
        LinkLoads(index, {}, traffic_, {EcmpMode::kHash, static_cast<uint64_t>(seed)});
    const auto up = Uplinks(index, loads, from_);
    const auto down = Uplinks(index, loads, to_);
    for (const auto& [spine, bytes] : up) {
      // Whole flows only, and each comes down through the spine it went up to.
      EXPECT_TRUE(bytes.first == 0 || bytes.first == 10 || bytes.first == 20) << bytes.first;
      EXPECT_EQ(down.at(spine).second, bytes.first) << "seed " << seed;
    }
    const bool collide = up.begin()->second.first == 20 || up.rbegin()->second.first == 20;
    collisions += collide ? 1 : 0;
    if (seed < 16) pattern += collide ? 'x' : '.';
  }
  // Two flows on two equal uplinks collide with probability 1/2.
  EXPECT_GT(collisions, 16);
  EXPECT_LT(collisions, 48);
  // Deterministic: a seed gives the same paths on every run and machine.
  EXPECT_EQ(pattern, kCollisionsOfSeeds0To15);
}

// One spine, and each leaf's uplink to it a bundle of two 400G cables: hashing picks a
// cable of the bundle, so two flows can still share one while the other idles.
TEST(LinkLoads, HashedEcmp_PicksOneCableOfABundledLink) {
  absl::StatusOr<FabricPtr> f = TwoLeafFabric(1);
  ASSERT_TRUE(f.ok()) << f.status();
  const SwitchId from = (*f)->blocks()[0].leaves[0];
  const SwitchId to = (*f)->blocks()[1].leaves[0];
  const LinkIndex index(**f, {}, {});
  ASSERT_EQ(index.uplinks(from).size(), 1u);
  ASSERT_EQ((*f)->links()[index.uplinks(from)[0].link].count, 2);
  TrafficReport traffic;
  traffic.network.flows = {{from, to, false, 10}, {from, to, false, 10}};
  int shared = 0;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    std::map<int32_t, double> up;  // by cable of the leaf's uplink
    for (const LinkLoad& l : LinkLoads(index, {}, traffic, {EcmpMode::kHash, seed})) {
      if (l.link != index.uplinks(from)[0].link) continue;
      ASSERT_GE(l.cable, 0);
      ASSERT_LT(l.cable, 2);
      up[l.cable] += l.up_bytes;
    }
    shared += up.size() == 1 ? 1 : 0;
  }
  EXPECT_GT(shared, 16);
  EXPECT_LT(shared, 48);
}

// A NIC cabled to `leaf`.
NicId NicUnder(const Fabric& fabric, SwitchId leaf) {
  for (const Link& l : fabric.links()) {
    if (l.a.kind == Endpoint::Kind::kNic && l.b.kind == Endpoint::Kind::kSwitch && l.b.id == leaf) {
      return l.a.id;
    }
  }
  return -1;
}

// Hashed ECMP against the fabric graph's own searches (topology/model/fabric_paths.h): a
// flow between the leaves of two NICs, under seed after seed, loads only links of the
// shortest paths between them; on superpod-4su the seeds reach every such link, on
// clos3-100k (through the core) every uplink of the first leaf.
TEST(LinkLoads, HashedEcmp_ChoosesAmongTheShortestPathsOfTheFabricGraph) {
  for (const char* preset : {"superpod-4su", "clos3-100k"}) {
    const FabricPtr f = Preset(preset);
    const bool core = std::string(preset) == "clos3-100k";
    const SwitchId from = f->blocks()[0].leaves[0];
    const SwitchId to = core ? f->blocks().back().leaves[0] : f->blocks()[1].leaves[0];
    const NicPaths paths =
        ShortestNicPaths(BuildFabricGraph(*f), *f, NicUnder(*f, from), NicUnder(*f, to));
    ASSERT_EQ(paths.switch_hops, core ? 5 : 3) << preset;
    std::set<LinkId> on_paths;  // switch-to-switch hops only: the flow has no NIC cables
    for (size_t hop = 1; hop + 1 < paths.hops.size(); ++hop) {
      on_paths.insert(paths.hops[hop].begin(), paths.hops[hop].end());
    }
    const LinkIndex index(*f, {}, {});
    TrafficReport traffic;
    traffic.network.flows = {{from, to, core, 10}};
    std::set<LinkId> hashed;
    for (uint64_t seed = 0; seed < 2000; ++seed) {
      for (const LinkLoad& l : LinkLoads(index, {}, traffic, {EcmpMode::kHash, seed})) {
        EXPECT_TRUE(on_paths.contains(l.link)) << preset << " seed " << seed << " link " << l.link;
        hashed.insert(l.link);
      }
    }
    if (!core) {
      EXPECT_EQ(hashed, on_paths) << preset;
      continue;
    }
    for (const LinkId l : paths.hops[1]) EXPECT_TRUE(hashed.contains(l)) << preset << " " << l;
  }
}

TEST(LinkIndex, LeavesOutDownUplinksAndSharesTheRest) {
  const FabricPtr f = Preset("superpod-4su");
  const SwitchId leaf = f->blocks()[0].leaves[0];
  const LinkIndex all(*f, {}, {});
  ASSERT_EQ(all.uplinks(leaf).size(), 16u);
  const LinkId down = all.uplinks(leaf)[3].link;
  const LinkIndex healthy(*f, std::vector<LinkId>{down}, {});
  ASSERT_EQ(healthy.uplinks(leaf).size(), 15u);
  double total = 0;
  for (const LinkIndex::Uplink& u : healthy.uplinks(leaf)) {
    EXPECT_NE(u.link, down);
    EXPECT_DOUBLE_EQ(u.share, 1.0 / 15);
    total += u.share;
  }
  EXPECT_DOUBLE_EQ(total, 1.0);
  // A down spine takes its links out of every leaf's set.
  const SwitchId spine = all.uplinks(leaf)[0].upper;
  const LinkIndex no_spine(*f, {}, std::vector<SwitchId>{spine});
  for (const LinkIndex::Uplink& u : no_spine.uplinks(leaf)) EXPECT_NE(u.upper, spine);
  EXPECT_EQ(no_spine.uplinks(leaf).size(), 15u);
  // NIC cables are found for every cabled NIC.
  for (NicId n = 0; n < static_cast<NicId>(f->nics().size()); ++n) {
    EXPECT_GE(all.access_link(n), 0) << f->nics()[n].name;
  }
}

}  // namespace
}  // namespace topoplace::sched
