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
#include "scheduler/state/occupancy.h"
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

// Maps `job` onto `hosts` and compares the two walks with and without rail-local
// forwarding.
void CompareWalks(const Fabric& fabric, const JobSpec& job, const std::vector<HostId>& hosts,
                  const std::string& what) {
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(fabric, job, hosts, Occupancy(fabric));
  ASSERT_TRUE(slots.ok()) << slots.status();
  const TierIndex index(fabric);
  const std::unique_ptr<Attachment[]> attached = index.Attach(*slots);
  const std::span<const Attachment> attachments(attached.get(), slots->size());
  const RankLayout layout(job);
  const TrafficModel traffic = BuildTrafficModel(job);
  for (bool rail_local : {false, true}) {
    const Router router(index, {.rail_local = rail_local});
    const int g = job.gpus_per_node;
    ExpectSameReport(
        EvaluateTraffic(layout, traffic, *slots, attachments, router, g),
        EvaluateTraffic(layout, traffic, *slots, attachments, router, g, /*tally_network=*/true),
        absl::StrCat(fabric.name(), " ", what, " rail_local ", rail_local));
  }
}

// `count` hosts with at least `gpus` GPUs, drawn at random so that pairs of every tier
// occur; with `aligned_first`, aligned hosts (TierIndex::aligned_gpus == gpus) first.
std::vector<HostId> RandomHosts(const Fabric& fabric, int gpus, size_t count, bool aligned_first,
                                std::mt19937_64& rng) {
  const TierIndex index(fabric);
  std::vector<HostId> hosts;
  for (HostId h = 0; h < static_cast<HostId>(fabric.hosts().size()); ++h) {
    if (static_cast<int>(fabric.hosts()[h].gpus.size()) >= gpus) hosts.push_back(h);
  }
  std::shuffle(hosts.begin(), hosts.end(), rng);
  if (aligned_first) {
    std::stable_partition(hosts.begin(), hosts.end(),
                          [&](HostId h) { return index.aligned_gpus(h) == gpus; });
  }
  hosts.resize(std::min(count, hosts.size()));
  return hosts;
}

void CompareWalks(const Fabric& fabric, const std::string& spec, uint64_t seed) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  std::mt19937_64 rng(seed);
  const std::vector<HostId> hosts =
      RandomHosts(fabric, job->gpus_per_node, job->nodes(), false, rng);
  ASSERT_EQ(hosts.size(), static_cast<size_t>(job->nodes())) << spec;
  CompareWalks(fabric, *job, hosts, absl::StrCat(spec, " seed ", seed));
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

// An EP group of four trays, two in each of two NVL72 racks (ranks 0, 1 | 2, 3 per TP
// lane): of the all-to-all's 12 directed pairs per lane, 8 leave the rack; of the dense
// gradients' ring 0 -> 1 -> 2 -> 3 -> 0 beside it, 2 of 4 edges do.
TEST(EvaluateTraffic, BooksTheDenseGradientRingBesideTheExpertAllToAll) {
  absl::StatusOr<FabricPtr> f = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(f.ok()) << f.status();
  const Fabric& fabric = **f;
  std::vector<HostId> hosts;
  for (const char* name : {"b00-n000", "b00-n001", "b00-n018", "b00-n019"}) {
    std::optional<HostId> h = fabric.FindHost(name);
    ASSERT_TRUE(h.has_value()) << name;
    hosts.push_back(*h);
  }
  ASSERT_NE(fabric.hosts()[hosts[0]].nvlink_domain_id, fabric.hosts()[hosts[2]].nvlink_domain_id);
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=4,pp=1,dp=1,ep=4,gpus_per_node=4,model=70b");
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(fabric, *job, hosts, Occupancy(fabric));
  ASSERT_TRUE(slots.ok()) << slots.status();
  const TierIndex index(fabric);
  const std::unique_ptr<Attachment[]> attached = index.Attach(*slots);
  const TrafficModel traffic = BuildTrafficModel(*job);
  ASSERT_GT(traffic.ring_pair(Dim::kEp), 0);
  const TrafficReport report =
      EvaluateTraffic(RankLayout(*job), traffic, *slots, {attached.get(), slots->size()},
                      Router(index, {.rail_local = true}), 4);
  const std::array<double, kNumTiers>& ep = report.dim_tier_bytes[static_cast<int>(Dim::kEp)];
  const double lanes = 4, a2a = traffic.pair(Dim::kEp), ring = traffic.ring_pair(Dim::kEp);
  EXPECT_DOUBLE_EQ(ep[static_cast<int>(Tier::kNvlink)], lanes * (4 * a2a + 2 * ring));
  EXPECT_DOUBLE_EQ(ep[static_cast<int>(Tier::kLeaf)] + ep[static_cast<int>(Tier::kSpine)],
                   lanes * (8 * a2a + 2 * ring));
  EXPECT_DOUBLE_EQ(traffic.per_rank_bytes[static_cast<int>(Dim::kEp)] * 16,
                   lanes * (12 * a2a + 4 * ring));
}

int Draw(std::mt19937_64& rng, int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

// A fabric of 1 to 3 switch tiers whose hosts differ on purpose: GPU and NIC counts,
// uncabled NICs, NICs on a stray leaf, NVLink domains, and GPU-to-NIC wiring that is
// declared, implied (no declared NIC), crossed, all on one NIC or random. Some hosts come
// out aligned, some not. Sets `gpus` to the GPU count most hosts have.
FabricPtr RandomFabric(std::mt19937_64& rng, int& gpus) {
  FabricBuilder b("random");
  LinkAttrs cable;
  cable.speed_gbps = 400;
  const int tiers = 1 + Draw(rng, 3), rails = 1 + Draw(rng, 3);
  const int leaves_per_block = rails, blocks = 1 + Draw(rng, 3);
  std::vector<SwitchId> leaves, spines;
  for (int l = 0; l < blocks * leaves_per_block; ++l) {
    leaves.push_back(*b.AddSwitch(absl::StrCat("leaf", l)));
  }
  if (tiers >= 2) {
    const int planes = 1 + Draw(rng, 2);  // 2: spines split by rail parity
    for (int s = 0; s < 2 + Draw(rng, 3); ++s) {
      spines.push_back(*b.AddSwitch(absl::StrCat("spine", s)));
      for (size_t l = 0; l < leaves.size(); ++l) {
        if (static_cast<int>(l) % planes == s % planes) {
          EXPECT_TRUE(b.AddLink(SwitchEnd(leaves[l]), SwitchEnd(spines.back()), cable).ok());
        }
      }
    }
  }
  if (tiers == 3) {
    const SwitchId core = *b.AddSwitch("core");
    for (SwitchId s : spines) EXPECT_TRUE(b.AddLink(SwitchEnd(s), SwitchEnd(core), cable).ok());
  }
  const int gpu_counts[] = {1, 2, 4, 8};
  gpus = gpu_counts[Draw(rng, 4)];
  for (int h = 0; h < 6 + Draw(rng, 10); ++h) {
    const std::string domain = Draw(rng, 4) == 0 ? absl::StrCat("nvl", Draw(rng, 2)) : "";
    const HostId host = *b.AddHost(absl::StrCat("h", h), domain);
    const int block = Draw(rng, blocks);
    const int nic_count = Draw(rng, 4) == 0 ? 1 + Draw(rng, 3) : rails;
    std::vector<NicId> nics;
    for (int k = 0; k < nic_count; ++k) {
      nics.push_back(*b.AddNic(host, absl::StrCat("mlx5_", k), 400));
      if (Draw(rng, 20) == 0) continue;  // uncabled
      const int leaf = Draw(rng, 10) == 0 ? Draw(rng, static_cast<int>(leaves.size()))
                                          : block * leaves_per_block + k % rails;
      EXPECT_TRUE(b.AddLink(NicEnd(nics.back()), SwitchEnd(leaves[leaf]), cable).ok());
    }
    const int host_gpus = Draw(rng, 5) == 0 ? gpu_counts[Draw(rng, 4)] : gpus;
    const int wiring = Draw(rng, 5);
    for (int i = 0; i < host_gpus; ++i) {
      const NicId nic = wiring == 0   ? -1                                   // implied
                        : wiring == 1 ? nics[nic_count - 1 - i % nic_count]  // crossed
                        : wiring == 2 ? nics[0]                              // one shared NIC
                        : wiring == 3 ? nics[Draw(rng, nic_count)]           // random
                                      : nics[i % nic_count];                 // straight
      EXPECT_TRUE(b.AddGpu(host, i, nic).ok());
    }
  }
  absl::StatusOr<FabricPtr> f = std::move(b).Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

// A random divisor of n.
int Divisor(std::mt19937_64& rng, int n) {
  std::vector<int> divisors;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  return divisors[Draw(rng, static_cast<int>(divisors.size()))];
}

TEST(EvaluateTraffic, SiblingShortcutMatchesThePairWalkOnRandomFabrics) {
  std::mt19937_64 rng(2026);
  int aligned_plans = 0;
  for (int round = 0; round < 300; ++round) {
    int g = 0;
    FabricPtr fabric = RandomFabric(rng, g);
    ASSERT_NE(fabric, nullptr);
    const TierIndex index(*fabric);
    const std::vector<HostId> hosts =
        RandomHosts(*fabric, g, 2 + Draw(rng, 7), Draw(rng, 2) == 0, rng);
    if (hosts.size() < 2) continue;
    int rest = static_cast<int>(hosts.size()) * g;
    const int tp = Divisor(rng, g);
    rest /= tp;
    const int cp = rest % 2 == 0 && Draw(rng, 3) == 0 ? 2 : 1;
    rest /= cp;
    const int ep = Draw(rng, 2) == 0 ? Divisor(rng, rest) : 1;
    rest /= ep;
    const int pp = Divisor(rng, rest);
    const std::string spec = absl::StrCat(
        "tp=", tp, ",cp=", cp, ",ep=", ep, ",pp=", pp, ",dp=", rest / pp, ",gpus_per_node=", g,
        Draw(rng, 2) == 0 ? ",order=tp-cp-ep-pp-dp" : "",
        ",tp_bytes=1000.5,cp_bytes=777.25,ep_bytes=33.3,dp_bytes=3.3e8,pp_bytes=12345.678");
    absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
    ASSERT_TRUE(job.ok()) << spec << ": " << job.status();
    aligned_plans += std::all_of(hosts.begin(), hosts.end(),
                                 [&](HostId h) { return index.aligned_gpus(h) == g; });
    CompareWalks(*fabric, *job, hosts, absl::StrCat("round ", round, " ", spec));
  }
  EXPECT_GT(aligned_plans, 50) << "too few plans took the shortcut to test it";
}

}  // namespace
}  // namespace topoplace::sched
