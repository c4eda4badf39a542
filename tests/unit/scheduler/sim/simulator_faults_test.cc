// Faults in the event loop, with answers computed by hand: an interrupted job restarts
// from its last checkpoint and ends exactly the lost work plus the restart cost later; a
// link degraded to half its capacity slows the DP ring on it by the ratio the model
// gives; after the detection delay, topoplace keeps new jobs off a degraded block while a
// baseline, which sees node health only, does not.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/trace_native.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

absl::StatusOr<Trace> Parse(const std::string& lines) {
  return ParseNativeTrace(std::string(kNativeTraceHeader) + "\n" + lines, "inline");
}

// A job of `hosts` whole hosts with 1 s of compute per iteration (gpu_flops below) and
// `dp_bytes` per rank per iteration to its DP ring neighbour.
std::string Job(int id, double arrival, double duration, int hosts, const char* dp_bytes) {
  return absl::StrCat(id, " ", arrival, " ", duration, " tp=8,pp=1,dp=", hosts,
                      ",h=8,s=1000,b=1,layers=8,params=1e9,mb=1,tp_bytes=0,dp_bytes=", dp_bytes,
                      "\n");
}

SimOptions WithFaults(std::vector<FaultEvent> events) {
  SimOptions o;
  o.comm = HandComputedComm();  // 1 s of compute per iteration
  o.shared_links = true;
  auto schedule = std::make_shared<FaultSchedule>();
  schedule->source = "test";
  schedule->events = std::move(events);
  o.faults.schedule = std::move(schedule);
  return o;
}

// The cable of `host`'s first NIC.
LinkId NicCable(const Fabric& fabric, HostId host) {
  const NicId nic = fabric.hosts()[host].nics[0];
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    for (const Endpoint& e : {link.a, link.b}) {
      if (e.kind == Endpoint::Kind::kNic && e.id == nic) return l;
    }
  }
  return -1;
}

// Blocks A and B of 4 hosts (tiny_fabric.h). J (2 hosts, 1,000 s, DP ring on its leaves
// only: never slowed) starts at 0 on A0 and A1 under first-fit. At 500 s A0's NIC cable
// fails: J has done 500 s of work; with checkpoints every 300 s it saved 300 and loses
// 200. It restarts at once on A1 and A2 (A0 is down for everyone): 60 s of restart, then
// the 700 s not saved: it ends at 500 + 760 = 1,260 = 1,000 + 200 + 60.
TEST(SimulatorFaults, InterruptedJobRestartsFromItsCheckpointAndEndsLostWorkPlusRestartLater) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const LinkId cable = NicCable(**fabric, 0);
  SimOptions o = WithFaults({{.time_s = 500,
                              .element = {FaultElement::Type::kLink, cable},
                              .kind = FaultKind::kFail,
                              .duration_s = 5000}});
  o.faults.checkpoint_interval_s = 300;
  o.faults.restart_s = 60;
  absl::StatusOr<Trace> trace = Parse(Job(1, 0, 1000, 2, "25e9"));
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> r = Simulator(*fabric, o).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  const JobRecord& j = r->jobs[0];
  EXPECT_EQ(j.interruptions, 1);
  EXPECT_DOUBLE_EQ(j.start_s, 0);
  EXPECT_NEAR(j.end_s, 1000 + 200 + 60, 1e-6);
  EXPECT_NEAR(j.lost_work_s, 200, 1e-6);
  EXPECT_NEAR(j.restart_work_s, 60, 1e-9);
  EXPECT_NEAR(j.held_s, 1260, 1e-6);
  EXPECT_EQ(r->faults_applied, 1);
  const PolicyMetrics m = Summarize(*r);
  EXPECT_NEAR(m.goodput, 1000.0 / 1260, 1e-9);
  EXPECT_NEAR(m.lost_gpu_hours, 16 * 260 / 3600.0, 1e-9);
  EXPECT_NEAR(m.interruptions_per_1000_job_hours, 1 / (1260 / 3600.0) * 1000, 1e-6);
  // Without the fault the same job ends at 1,000 and loses nothing.
  SimOptions none = WithFaults({});
  absl::StatusOr<SimResult> clean = Simulator(*fabric, none).Run(*trace, "first-fit");
  ASSERT_TRUE(clean.ok());
  EXPECT_NEAR(clean->jobs[0].end_s, 1000, 1e-6);
  EXPECT_DOUBLE_EQ(Summarize(*clean).goodput, 1);
}

// A job on other hosts than the failed element's is not interrupted.
TEST(SimulatorFaults, AFailureElsewhereInterruptsNothing) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  const LinkId cable = NicCable(**fabric, 7);  // B3: first-fit uses A0, A1
  SimOptions o = WithFaults({{.time_s = 500,
                              .element = {FaultElement::Type::kLink, cable},
                              .kind = FaultKind::kFail,
                              .duration_s = 5000}});
  absl::StatusOr<Trace> trace = Parse(Job(1, 0, 1000, 2, "25e9"));
  ASSERT_TRUE(trace.ok());
  absl::StatusOr<SimResult> r = Simulator(*fabric, o).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->jobs[0].interruptions, 0);
  EXPECT_NEAR(r->jobs[0].end_s, 1000, 1e-6);
}

// Two pods of one host, one spine each, 800 Gb/s from each spine to the core (4:1,
// tiny_fabric.h). A dp=2 job spans the pods; alone its ring takes 2 s per iteration on
// the core links, step 1 + 2 = 3 s against the reference 1.5 s: rate 0.5, so by 150 s it
// has done 75 of its 150 s of work. Then one core link drops to half its capacity: the
// ring takes 4 s, step 5 s, rate 1.5 / 5 = 0.3, and the other 75 s of work take 250 s:
// it ends at 400 s, not 300.
TEST(SimulatorFaults, HalfCapacityCoreLinkSlowsTheRingByTheModelsRatio) {
  absl::StatusOr<FabricPtr> fabric = TinyTwoPodFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  LinkId core = -1;
  for (LinkId l = 0; l < static_cast<LinkId>((*fabric)->links().size()); ++l) {
    const Link& link = (*fabric)->links()[l];
    if (link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch &&
        std::min((*fabric)->switches()[link.a.id].tier, (*fabric)->switches()[link.b.id].tier) ==
            2) {
      core = l;
      break;
    }
  }
  ASSERT_GE(core, 0);
  absl::StatusOr<Trace> trace = Parse(Job(1, 0, 150, 2, "25e9"));
  ASSERT_TRUE(trace.ok());
  SimOptions o = WithFaults({{.time_s = 150,
                              .element = {FaultElement::Type::kLink, core},
                              .kind = FaultKind::kDegrade,
                              .duration_s = 1e6,
                              .capacity = 0.5}});
  absl::StatusOr<SimResult> r = Simulator(*fabric, o).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->jobs[0].interruptions, 0);
  EXPECT_NEAR(r->jobs[0].end_s, 400, 1e-6);
  // Restored before the job needs it again: the degradation costs only its own span.
  o = WithFaults({{.time_s = 150,
                   .element = {FaultElement::Type::kLink, core},
                   .kind = FaultKind::kDegrade,
                   .duration_s = 50,
                   .capacity = 0.5}});
  r = Simulator(*fabric, o).Run(*trace, "first-fit");
  ASSERT_TRUE(r.ok()) << r.status();
  // 150-200 at rate 0.3: 15 s of work; the other 60 at rate 0.5: 120 s. End 320.
  EXPECT_NEAR(r->jobs[0].end_s, 320, 1e-6);
}

// Three blocks of 4 hosts under one 4:1 spine. At 0 every uplink of block A degrades to
// half. A 6-host job with DP traffic must span two blocks. Arriving at 10 s (before the
// 20 s detection delay) topoplace does not know yet; arriving at 100 s it spans B and C.
// first-fit, which sees node health only, takes A's hosts first either way.
TEST(SimulatorFaults, AfterTheDetectionDelayTopoplaceAvoidsADegradedBlockAndFirstFitDoesNot) {
  ClosParams p = OneSpine("tiny-3x4", 3, 4);
  p.leaf_uplink_gbps = 400;
  p.leaf_oversubscription = 4;
  absl::StatusOr<FabricPtr> fabric = GenerateClos(p);
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const Fabric& f = **fabric;
  std::vector<FaultEvent> events;
  for (LinkId l = 0; l < static_cast<LinkId>(f.links().size()); ++l) {
    const Link& link = f.links()[l];
    if (link.a.kind != Endpoint::Kind::kSwitch || link.b.kind != Endpoint::Kind::kSwitch) continue;
    for (const Endpoint& e : {link.a, link.b}) {
      if (f.switches()[e.id].tier == 1 && f.switches()[e.id].block == 0) {
        events.push_back({.time_s = 0,
                          .element = {FaultElement::Type::kLink, l},
                          .kind = FaultKind::kDegrade,
                          .duration_s = 1e6,
                          .capacity = 0.5});
      }
    }
  }
  ASSERT_EQ(events.size(), 8u);  // one uplink per rail leaf of block A
  const SimOptions o = WithFaults(events);
  ASSERT_EQ(o.faults.detect_s, 20);
  for (double arrival : {10.0, 100.0}) {
    absl::StatusOr<Trace> trace = Parse(Job(1, arrival, 100, 6, "25e9"));
    ASSERT_TRUE(trace.ok());
    for (const char* policy : {"topoplace", "first-fit"}) {
      absl::StatusOr<SimResult> r = Simulator(*fabric, o).Run(*trace, policy);
      ASSERT_TRUE(r.ok()) << r.status();
      const bool avoids = std::string(policy) == "topoplace" && arrival > o.faults.detect_s;
      // Placed in B and C, the job meets no degraded link: slowed only by the 4:1 spine.
      // In A and B it crosses A's half-capacity uplinks and runs slower still.
      absl::StatusOr<SimResult> clean = Simulator(*fabric, WithFaults({})).Run(*trace, policy);
      ASSERT_TRUE(clean.ok());
      if (avoids) {
        EXPECT_NEAR(r->jobs[0].end_s, clean->jobs[0].end_s, 1e-6) << policy << " " << arrival;
      } else {
        EXPECT_GT(r->jobs[0].end_s, clean->jobs[0].end_s + 1) << policy << " " << arrival;
      }
    }
  }
}

TEST(SimulatorFaults, FaultsWithoutSharedLinksAreInvalidArgument) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  SimOptions o = WithFaults({{.time_s = 1,
                              .element = {FaultElement::Type::kHost, 0},
                              .kind = FaultKind::kFail,
                              .duration_s = 5}});
  o.shared_links = false;
  absl::StatusOr<Trace> trace = Parse(Job(1, 0, 10, 1, "0"));
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(Simulator(*fabric, o).Run(*trace, "first-fit").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// While hosts are down, a job that needs every host waits for the repair instead of
// being rejected as larger than the idle fabric.
TEST(SimulatorFaults, AJobThatFitsOnlyOnceRepairedWaitsForTheRepair) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok());
  const SimOptions o = WithFaults({{.time_s = 0,
                                    .element = {FaultElement::Type::kHost, 5},
                                    .kind = FaultKind::kFail,
                                    .duration_s = 300}});
  absl::StatusOr<Trace> trace = Parse(Job(1, 10, 100, 8, "0"));
  ASSERT_TRUE(trace.ok());
  for (const char* policy : {"topoplace", "first-fit"}) {
    absl::StatusOr<SimResult> r = Simulator(*fabric, o).Run(*trace, policy);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->jobs[0].outcome, JobOutcome::kCompleted) << policy;
    EXPECT_DOUBLE_EQ(r->jobs[0].start_s, 300) << policy;
  }
}

}  // namespace
}  // namespace topoplace::sched::sim
