// The event loop on tests/fixtures/traces/tiny-hand.trace, whose outcome is computed by
// hand below for every deterministic policy.
//
// Fabric (tiny_fabric.h): blocks A and B of 4 hosts each; spine 4:1 oversubscribed.
// Every job: tp=8 in one host, dp=N hosts, 25e9 B per rank per iteration to its DP ring
// successor, 1 s compute per iteration. Per rank: leaf 0.5 s, spine 2 s (comm_model_test).
// Reference step (all network bytes at leaf speed) = 1.5 s; trace durations are reference
// run times, so a job has duration / 1.5 iterations.
//
//   job arrival dur  hosts
//   J0   0      100  3
//   J1   0      100  2
//   J2   10     50   4      blocks the queue head
//   J3   20     30   1      backfills: ends at 50, before J2's shadow time 100
//   J4   30     500  2      backfills: ends after 100, but its 16 GPUs fit in `extra`
//
// Topology-aware policies (topoplace, slurm-tree, slurm-block, kueue-bestfit, volcano):
//   t=0   J0 -> 3 hosts of one block X; J1 -> 2 hosts of the other block Y (X has 1 left).
//   t=10  J2 needs 4 hosts, 3 free -> head blocked. Shadow: free 24 GPUs + J0's 24 at
//         t=100 = 48 >= 32 -> shadow 100, extra 48 - 32 = 16.
//   t=20  J3 (1 host, ends 50 <= 100) backfills into X's last host (best fit).
//   t=30  J4 (2 hosts, ends 530 > 100, 16 GPUs <= extra 16) backfills into Y's last 2.
//   t=100 J0 and J1 end; X is free again -> J2 starts there, ends 150.
//   No job crosses a block: spine bytes 0, every slowdown 1.
//   queue: J2 90, others 0 -> mean 18. JCT: 100, 100, 140, 30, 500 -> mean 174.
// first-fit (hosts in fabric order A0..A3, B0..B3):
//   t=0   J0 -> A0-A2; J1 -> A3 + B0: both DP ring edges cross blocks, 16 x 25e9 = 4e11
//         B/iter at the spine; step 1 + 2 = 3 s, slowdown 2 -> J1 ends at 200.
//   t=10  J2 blocked; shadow 100 (J0), extra 16 as above.
//   t=20  J3 -> B1, ends 50.  t=30 J4 -> B2 + B3 (one block), ends 530.
//   t=100 J0 ends: free A0-A2 + B1 -> J2 -> A0, A1, A2, B1: ring edges A2->B1 and B1->A0
//         cross (2 x 8 x 25e9 = 4e11 B/iter spine), A0->A1 and A1->A2 stay on leaves
//         (4e11 B/iter). Per rank: spine 4e11/32/12.5e9 = 1 s, leaf 4e11/32/50e9 = 0.25 s;
//         step 2.25 s, slowdown 1.5 -> runs 75 s, ends 175.
//   Spine bytes: J1 4e11 x 100/1.5 + J2 4e11 x 50/1.5 = 4e11 x 100 = 4e13 B.
//   JCT: 100, 200, 165, 30, 500 -> mean 199. Queue mean 18.
// Slurm's block fragmentation (2 base blocks of 4 hosts, sizes 1 and 2 blocks: 4 x broken
// base blocks and aggregates + busy hosts), integrated until the last job ends at 530:
//   topology-aware: 21 x 20 + 22 x 10 + 24 x 20 + 23 x 50 + 22 x 50 (J2 in X, J4 in Y)
//                   + 14 x 380 (only J4, in Y) = 8690 node-seconds;
//   first-fit:      21 x 20 + 22 x 10 + 24 x 20 + 23 x 50 + 24 x 75 + 20 x 25 (J1 on A3+B0,
//                   J4) + 14 x 330 (J4) = 9190.
// random is left out: its hosts come from a seeded shuffle, not computable by hand.
#include "scheduler/sim/simulator.h"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gtest/gtest.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/sim/trace.h"
#include "scheduler/sim/trace_native.h"
#include "tests/testing/fabrics.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched::sim {
namespace {

struct JobExpectation {
  double start, end, spine_bytes_per_iter, slowdown;
};

struct PolicyCase {
  const char* policy;
  std::vector<JobExpectation> jobs;  // J0..J4
  double total_spine_bytes, mean_queue, mean_jct;
  double slurm_fragmentation_node_seconds;  // Slurm's block metric integrated over time
};

const std::vector<JobExpectation> kTopologyAware = {
    {0, 100, 0, 1}, {0, 100, 0, 1}, {100, 150, 0, 1}, {20, 50, 0, 1}, {30, 530, 0, 1}};
const std::vector<JobExpectation> kFirstFit = {
    {0, 100, 0, 1}, {0, 200, 4e11, 2}, {100, 175, 4e11, 1.5}, {20, 50, 0, 1}, {30, 530, 0, 1}};

void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.policy; }

class SimulatorHandTrace : public ::testing::TestWithParam<PolicyCase> {
 protected:
  static SimOptions Options() {
    SimOptions o;
    o.comm = HandComputedComm();
    return o;
  }
};

TEST_P(SimulatorHandTrace, MatchesHandComputedQueueingCompletionAndSpineBytes) {
  const PolicyCase& c = GetParam();
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  absl::StatusOr<Trace> trace = LoadTraceFile(TOPOPLACE_FIXTURES_DIR "/traces/tiny-hand.trace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  const Simulator sim(*fabric, Options());
  absl::StatusOr<SimResult> result = sim.Run(*trace, c.policy);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->jobs.size(), 5u);
  for (size_t j = 0; j < 5; ++j) {
    const JobRecord& r = result->jobs[j];
    SCOPED_TRACE(::testing::Message() << c.policy << " J" << j);
    EXPECT_EQ(r.outcome, JobOutcome::kCompleted);
    EXPECT_DOUBLE_EQ(r.start_s, c.jobs[j].start);
    EXPECT_DOUBLE_EQ(r.end_s, c.jobs[j].end);
    EXPECT_DOUBLE_EQ(r.spine_bytes_per_iter, c.jobs[j].spine_bytes_per_iter);
    EXPECT_DOUBLE_EQ(r.slowdown, c.jobs[j].slowdown);
  }
  const PolicyMetrics m = Summarize(*result);
  EXPECT_NEAR(m.total_spine_bytes, c.total_spine_bytes, 1e3);
  EXPECT_DOUBLE_EQ(m.mean_queue_s, c.mean_queue);
  EXPECT_DOUBLE_EQ(m.mean_jct_s, c.mean_jct);
  EXPECT_DOUBLE_EQ(result->slurm_block_fragmentation_node_seconds,
                   c.slurm_fragmentation_node_seconds);
  EXPECT_DOUBLE_EQ(m.mean_slurm_block_fragmentation, c.slurm_fragmentation_node_seconds / 530);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, SimulatorHandTrace,
    ::testing::Values(PolicyCase{"topoplace", kTopologyAware, 0, 18, 174, 8690},
                      PolicyCase{"slurm-tree", kTopologyAware, 0, 18, 174, 8690},
                      PolicyCase{"slurm-block", kTopologyAware, 0, 18, 174, 8690},
                      PolicyCase{"kueue-bestfit", kTopologyAware, 0, 18, 174, 8690},
                      PolicyCase{"volcano", kTopologyAware, 0, 18, 174, 8690},
                      PolicyCase{"first-fit", kFirstFit, 4e13, 18, 199, 9190}),
    [](const ::testing::TestParamInfo<PolicyCase>& info) {
      std::string name = info.param.policy;
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

absl::StatusOr<Trace> Parse(const std::string& lines) {
  return ParseNativeTrace(std::string(kNativeTraceHeader) + "\n" + lines, "inline");
}

// A native trace line: a job of `hosts` whole hosts that sends nothing over the network,
// so that its run time is exactly its duration whatever the placement.
std::string Line(int id, double arrival, double duration, int hosts) {
  return absl::StrCat(id, " ", arrival, " ", duration, " tp=8,pp=1,dp=", hosts,
                      ",h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=0\n");
}

TEST(Simulator, BackfillsSmallJobBehindBlockedHead) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  // J0 takes 7 of 8 hosts until 100; J1 (8 hosts) waits: shadow 100 (8 free GPUs + J0's
  // 56 = 64), extra 0. J2 (1 host, 50 s) ends at 60 <= 100, so it runs at once although
  // it arrived after J1; J1 starts at 100.
  absl::StatusOr<Trace> trace = Parse(Line(0, 0, 100, 7) + Line(1, 5, 10, 8) + Line(2, 10, 50, 1));
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> r = Simulator(*fabric, {}).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 10);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 100);
}

TEST(Simulator, DoesNotBackfillJobThatWouldDelayTheHead) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  // As above, but J2 would run from 10 to 210 on the free host, past the shadow time 100,
  // with extra 0: it waits; J1 runs 100-110, then J2 starts at 110.
  absl::StatusOr<Trace> trace = Parse(Line(0, 0, 100, 7) + Line(1, 5, 10, 8) + Line(2, 10, 200, 1));
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> r = Simulator(*fabric, {}).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 100);
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 110);
}

// Jobs to come on NVLink racks (policies/fragment_yield.h): 2 blocks x 2 racks of 6 four-GPU
// trays. J0-J3 (4 trays each) leave 2 trays free in every rack; J2 and J3 end at 3,600.
// At 10, J4 (8 trays, more than a rack) would spread over all four racks, but J5 and J6 (2
// trays each, arriving with it) could start there now and would otherwise wait 3,590 s
// each, 7,180 in all, against J4's 3,590 for two whole racks: J4 waits, J5 and J6 backfill
// (they end by J4's shadow, 3,600), and J4 starts at 3,600 on racks 2 and 3 alone. A soft
// J4 never waits: it spreads at 10 and J5 and J6 wait for room.
struct YieldRun {
  double j4_start, j5_start, j6_start;
  int j4_racks;
};
absl::StatusOr<YieldRun> RunYieldTrace(const char* j4_mode) {
  ClosParams p = testing::TinyClos(/*blocks=*/2, /*nodes=*/12, /*gpus=*/4, /*rails=*/4);
  p.nodes_per_nvlink_domain = 6;
  TP_ASSIGN_OR_RETURN(FabricPtr fabric, GenerateClos(p));
  const auto line = [](int id, double arrival, double duration, int trays, const char* mode) {
    return absl::StrCat(id, " ", arrival, " ", duration, " tp=4,pp=1,dp=", trays,
                        ",gpus_per_node=4,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,"
                        "dp_bytes=0,mode=",
                        mode, "\n");
  };
  TP_ASSIGN_OR_RETURN(const Trace trace,
                      Parse(line(0, 0, 36000, 4, "hard") + line(1, 0, 36000, 4, "hard") +
                            line(2, 0, 3600, 4, "hard") + line(3, 0, 3600, 4, "hard") +
                            line(4, 10, 3600, 8, j4_mode) + line(5, 10, 3590, 2, "hard") +
                            line(6, 10, 3590, 2, "hard")));
  TP_ASSIGN_OR_RETURN(const SimResult r, Simulator(fabric, {}).Run(trace, "topoplace"));
  return YieldRun{r.jobs[4].start_s, r.jobs[5].start_s, r.jobs[6].start_s,
                  r.jobs[4].nvlink_domains};
}

TEST(Simulator, ALargeJobLeavesPartlyUsedRacksToWaitingJobsWhoseWaitsOutweighItsOwn) {
  absl::StatusOr<YieldRun> hard = RunYieldTrace("hard");
  ASSERT_TRUE(hard.ok()) << hard.status();
  EXPECT_DOUBLE_EQ(hard->j5_start, 10);
  EXPECT_DOUBLE_EQ(hard->j6_start, 10);
  EXPECT_DOUBLE_EQ(hard->j4_start, 3600);
  EXPECT_EQ(hard->j4_racks, 2);
  absl::StatusOr<YieldRun> soft = RunYieldTrace("soft");
  ASSERT_TRUE(soft.ok()) << soft.status();
  EXPECT_DOUBLE_EQ(soft->j4_start, 10);
  EXPECT_EQ(soft->j4_racks, 4);
  EXPECT_GT(soft->j5_start, 10);
}

// Shared links, by hand. 3 blocks x 2 hosts x 8 GPUs, 8 rails of 400G (50e9 B/s), each
// rail leaf with one 400G uplink. first-fit puts J0 (silent) on b00-n000, J1 (dp=2) on
// b00-n001 + b01-n000 and J2 (dp=2) on b01-n001 + b02-n000: both rings cross block 1's
// uplinks. Per iteration: 1 s compute, 25e9 B per rank on the network; alone that is 0.5 s
// (its NIC and uplinks run at 50e9 B/s), the reference step 1.5 s. Together each gets
// half of block 1's uplinks: step 1 + 0.5 / 0.5 = 2 s, rate 1.5 / 2 = 0.75. J1 (75 s of
// work) ends at 75 / 0.75 = 100 s; J2 has done 75 of its 150 s by then and runs the rest
// alone at rate 1: it ends at 175 s.
TEST(Simulator, SharedLinks_JobsOnACommonUplinkSlowEachOtherUntilOneEnds) {
  absl::StatusOr<FabricPtr> fabric = TinySharedUplinkFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const std::string talk = ",h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9\n";
  absl::StatusOr<Trace> trace =
      Parse(Line(0, 0, 1000, 1) + "1 0 75 tp=8,pp=1,dp=2" + talk + "2 0 150 tp=8,pp=1,dp=2" + talk);
  ASSERT_TRUE(trace.ok()) << trace.status();
  SimOptions options;
  options.comm = HandComputedComm();
  options.shared_links = true;
  absl::StatusOr<SimResult> r = Simulator(*fabric, options).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->jobs[1].end_s, 100, 1e-6);
  EXPECT_NEAR(r->jobs[2].end_s, 175, 1e-6);
  EXPECT_NEAR(r->jobs[1].slowdown, 100.0 / 75, 1e-9);
  EXPECT_NEAR(r->jobs[0].end_s, 1000, 1e-6);  // silent: unaffected
  // Alone on the fabric, J2 would not be slowed at all.
  absl::StatusOr<Trace> alone = Parse("2 0 150 tp=8,pp=1,dp=2" + talk);
  ASSERT_TRUE(alone.ok());
  absl::StatusOr<SimResult> a = Simulator(*fabric, options).Run(*alone, "first-fit");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_NEAR(a->jobs[0].end_s, 150, 1e-6);
}

// Two pods of one 8-GPU host each; every rail leaf has one 400G uplink to its pod's spine,
// and each spine has 800 Gb/s (100e9 B/s) to the core (4:1). A dp=2 job must span the
// pods: its 8 rail rings each send 25e9 B per iteration up through the one spine, 2e11 B
// over the 100e9 B/s core link, 2 s, where a NIC alone would take 0.5 s. The step is
// 1 + 2 = 3 s against the reference 1.5 s: slowdown 2, by the capacities' ratio, in both
// network models (the tier model sees the same 4:1 as NIC speed / 4).
TEST(Simulator, DpRingAcrossTwoPodsSlowsByTheCoreLinksCapacityRatio) {
  absl::StatusOr<FabricPtr> fabric = TinyTwoPodFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  double core_link_gbps = 0;
  for (const Link& l : (*fabric)->links()) {
    if (l.a.kind == Endpoint::Kind::kSwitch && l.b.kind == Endpoint::Kind::kSwitch &&
        std::min((*fabric)->switches()[l.a.id].tier, (*fabric)->switches()[l.b.id].tier) == 2) {
      core_link_gbps = l.bandwidth_gbps();
    }
  }
  ASSERT_DOUBLE_EQ(core_link_gbps, 800);
  absl::StatusOr<Trace> trace = Parse(
      "1 0 150 tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=25e9\n");
  ASSERT_TRUE(trace.ok()) << trace.status();
  for (bool shared : {false, true}) {
    SimOptions options;
    options.comm = HandComputedComm();
    options.shared_links = shared;
    absl::StatusOr<SimResult> r = Simulator(*fabric, options).Run(*trace, "first-fit");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->jobs[0].pods, 2);
    EXPECT_NEAR(r->jobs[0].slowdown, 2.0, 1e-9) << (shared ? "shared" : "alone");
    EXPECT_NEAR(r->jobs[0].end_s, 300, 1e-6) << (shared ? "shared" : "alone");
  }
}

// Blocks A and B of 4 hosts. J0 and J1 (3 hosts each, until 1000) leave one host free in
// each block. J2 (2 hosts, max_tier=block, hard) arrives at 10 and fits no block.
std::string WaitTrace(const std::string& j2_extra) {
  return Line(0, 0, 1000, 3) + Line(1, 0, 1000, 3) +
         "2 10 50 tp=8,pp=1,dp=2,h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,"
         "dp_bytes=0,max_tier=block" +
         j2_extra + "\n";
}

absl::StatusOr<SimResult> RunWaitTrace(const std::string& j2_extra) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  if (!fabric.ok()) return fabric.status();
  absl::StatusOr<Trace> trace = Parse(WaitTrace(j2_extra));
  if (!trace.ok()) return trace.status();
  return Simulator(*fabric, SimOptions{}).Run(*trace, "topoplace");
}

TEST(Simulator, MaxWait_RelaxedPlacementIsTakenWhenTheBoundExpires) {
  absl::StatusOr<SimResult> r = RunWaitTrace(",max_wait=100");
  ASSERT_TRUE(r.ok()) << r.status();
  // Exactly at arrival + max_wait, across the two blocks, though nothing ended then.
  EXPECT_DOUBLE_EQ(r->jobs[2].start_s, 110);
  EXPECT_TRUE(r->jobs[2].relaxed);
  EXPECT_EQ(r->jobs[2].blocks, 2);
}

TEST(Simulator, MaxWait_TheTierHoldsUntilTheBound) {
  struct Case {
    const char* extra;
    double start;
    bool relaxed;
  };
  for (const Case& c : {
           // Hard without a bound: waits for a block, until J0 ends at 1000.
           Case{"", 1000, false},
           // A bound longer than that wait: a block frees first, the tier is kept.
           Case{",max_wait=2h", 1000, false},
           // Relaxed at 1000.5, but J0's end at 1000 freed a block first: kept.
           Case{",max_wait=990.5", 1000, false},
           // Relaxed at 999, one second before a block would have freed.
           Case{",max_wait=989", 999, true},
       }) {
    absl::StatusOr<SimResult> r = RunWaitTrace(c.extra);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_DOUBLE_EQ(r->jobs[2].start_s, c.start) << c.extra;
    EXPECT_EQ(r->jobs[2].relaxed, c.relaxed) << c.extra;
    EXPECT_EQ(r->jobs[2].blocks, c.relaxed ? 2 : 1) << c.extra;
  }
}

TEST(Simulator, RejectsJobLargerThanTheFabricInsteadOfBlocking) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  // 9 hosts on an 8-host fabric: rejected on arrival; J1 starts when it arrives.
  absl::StatusOr<Trace> trace = Parse(Line(0, 0, 10, 9) + Line(1, 1, 10, 1));
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> r = Simulator(*fabric, {}).Run(*trace, "topoplace");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->jobs[0].outcome, JobOutcome::kRejected);
  EXPECT_EQ(r->jobs[1].outcome, JobOutcome::kCompleted);
  EXPECT_DOUBLE_EQ(r->jobs[1].start_s, 1);
}

// On GB200 NVL72 (4-GPU trays) the degree rule used to ask for 8 GPUs per node and every
// job of the large mix was rejected. Both synthetic mixes, shaped for the fabric's hosts,
// now run to completion under topoplace and a baseline.
TEST(Simulator, Nvl72CompletesEveryJobOfTheLargeAndTheMoeMix) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const int64_t gpus = static_cast<int64_t>((*fabric)->gpus().size());
  for (double moe_share : {0.0, kMoeMixShare}) {
    absl::StatusOr<Trace> trace = GenerateLargeJobMix(
        gpus, {.jobs = 300, .moe_share = moe_share, .shape = NodeShapeOf(**fabric)});
    ASSERT_TRUE(trace.ok()) << trace.status();
    int moe = 0;
    for (const TraceJob& j : trace->jobs) moe += j.moe ? 1 : 0;
    if (moe_share > 0) {
      EXPECT_GT(moe, 100) << "about half of 300";
    }
    for (const char* policy : {"topoplace", "slurm-block"}) {
      absl::StatusOr<SimResult> r = Simulator(*fabric, {}).Run(*trace, policy);
      ASSERT_TRUE(r.ok()) << r.status();
      for (const JobRecord& j : r->jobs) {
        EXPECT_EQ(j.outcome, JobOutcome::kCompleted) << policy << " job " << j.id;
      }
    }
  }
}

// A trace read before the fabric is known (Philly's GPU counts) is shaped for 8-GPU hosts;
// ReshapeFor derives its jobs again for the simulated fabric's.
TEST(Simulator, ReshapeForFitsCountDerivedJobsToTheHosts) {
  absl::StatusOr<Trace> trace = Parse(Line(0, 0, 10, 2) + Line(1, 1, 10, 1));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->jobs[0].derived_from_gpus, 0);  // the native format gives the spec
  trace->jobs[0].derived_from_gpus = 64;
  trace->jobs[0].spec = *JobForGpuCount(64);
  ASSERT_TRUE(ReshapeFor(*trace, {.gpus_per_node = 4, .nvlink_domain_gpus = 72}).ok());
  EXPECT_EQ(trace->jobs[0].spec.gpus_per_node, 4);
  EXPECT_EQ(trace->jobs[0].spec.world_size(), 64);
  EXPECT_EQ(trace->jobs[1].spec.gpus_per_node, 8);  // given, left alone
}

TEST(Simulator, SameSeedGivesTheSameRandomPlacements) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  absl::StatusOr<Trace> trace = LoadTraceFile(TOPOPLACE_FIXTURES_DIR "/traces/tiny-hand.trace");
  ASSERT_TRUE(trace.ok());
  const Simulator sim(*fabric, {});
  absl::StatusOr<SimResult> a = sim.Run(*trace, "random");
  absl::StatusOr<SimResult> b = sim.Run(*trace, "random");
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t j = 0; j < a->jobs.size(); ++j) {
    EXPECT_DOUBLE_EQ(a->jobs[j].end_s, b->jobs[j].end_s);
    EXPECT_DOUBLE_EQ(a->jobs[j].spine_bytes_per_iter, b->jobs[j].spine_bytes_per_iter);
  }
}

TEST(Simulator, UnknownPolicyIsInvalidArgument) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  Trace trace;
  EXPECT_EQ(Simulator(*fabric, {}).Run(trace, "nope").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace topoplace::sched::sim
