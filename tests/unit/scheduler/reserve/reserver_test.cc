// The Reserve use case on a real SQLite ledger and the real engine: it holds the plan's
// GPUs and stores the plan, answers a repeated request_id from the ledger, places again
// when a concurrent Reserve takes its GPUs first (kAttempts in all), places concurrent
// Reserves around each other's GPUs, and hands the placement the load and exclusions its
// ports give.
#include "scheduler/reserve/reserver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/reserve/expected_ends.h"
#include "store/ports/forwarding_ledger.h"
#include "tests/unit/scheduler/reserve/use_case_test_base.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReserverTest : public UseCaseTestBase {
 protected:
  static ReserveCommand Command(const std::string& spec, const std::string& request_id = "") {
    ReserveCommand command;
    command.placement.job = *ParseJobSpec(spec);
    command.ttl = absl::Minutes(5);
    command.request_id = request_id;
    return command;
  }
};

TEST_F(ReserverTest, HoldsThePlansGpusAndStoresThePlan) {
  const Reserver reserver(Ports());
  absl::StatusOr<ReserveOutcome> out = reserver.Reserve(Command("tp=8,pp=2,dp=1,model=7b"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->replayed);
  ASSERT_TRUE(out->plan.has_value());
  EXPECT_EQ(out->allocation.gpus.size(), 16u);
  EXPECT_EQ(out->allocation.job_spec, FormatJobSpec(*ParseJobSpec("tp=8,pp=2,dp=1,model=7b")));
  EXPECT_EQ(out->allocation.fabric_version, 3u);
  EXPECT_EQ(out->allocation.plan_json, out->plan_json);
  EXPECT_THAT(out->plan_json, HasSubstr("\"ranks\""));
  EXPECT_EQ(ledger_->Occupancy().busy_gpu_count(), 16);
  EXPECT_EQ(placements_, 1);
}

// The outlook's run is kept as the allocation's expected end, and ExpectedHostEnds reads
// the hosts' ends back: the last end of a host's allocations, 0 for a host held by one of
// unknown end and for a free host.
TEST_F(ReserverTest, KeepsTheOutlooksRunAsTheExpectedEndThatExpectedHostEndsReads) {
  const Reserver reserver(Ports());
  ReserveCommand hour = Command("tp=4,pp=1,dp=1,gpus_per_node=4");
  hour.placement.outlook.run_s = 3600;
  absl::StatusOr<ReserveOutcome> a = reserver.Reserve(hour);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->allocation.expected_end, a->allocation.created_at + absl::Hours(1));
  const HostId host = a->plan->node_hosts[0];
  // Two more hours on the same host (its other four GPUs), and a job of unknown end
  // on another host.
  ReserveCommand longer =
      Command(absl::StrCat("tp=4,pp=1,dp=1,gpus_per_node=4,hosts=", fabric_->hosts()[host].name));
  longer.placement.outlook.run_s = 3 * 3600;
  ASSERT_TRUE(reserver.Reserve(longer).ok());
  absl::StatusOr<ReserveOutcome> unknown = reserver.Reserve(Command("tp=8,pp=1,dp=1"));
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ(unknown->allocation.expected_end, absl::InfiniteFuture());

  const std::vector<double> ends = ExpectedHostEnds(*ledger_, a->allocation.created_at);
  ASSERT_EQ(ends.size(), fabric_->hosts().size());
  EXPECT_NEAR(ends[host], 3 * 3600, 1);
  EXPECT_EQ(ends[unknown->plan->node_hosts[0]], 0);
  int free_hosts = 0;
  for (size_t h = 0; h < ends.size(); ++h) {
    if (static_cast<HostId>(h) != host && static_cast<HostId>(h) != unknown->plan->node_hosts[0]) {
      EXPECT_EQ(ends[h], 0) << fabric_->hosts()[h].name;
      ++free_hosts;
    }
  }
  EXPECT_EQ(free_hosts, 6);
  // Past the ends, nothing is left to wait for.
  EXPECT_EQ(ExpectedHostEnds(*ledger_, a->allocation.created_at + absl::Hours(4))[host], 0);
}

TEST_F(ReserverTest, ARepeatedRequestIdIsAnsweredFromTheLedger) {
  const Reserver reserver(Ports());
  absl::StatusOr<ReserveOutcome> first = reserver.Reserve(Command("tp=8,pp=2,dp=1", "job-7"));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<ReserveOutcome> again = reserver.Reserve(Command("tp=8,pp=2,dp=1", "job-7"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->replayed);
  EXPECT_FALSE(again->plan.has_value());
  EXPECT_EQ(again->allocation.id, first->allocation.id);
  EXPECT_EQ(again->plan_json, first->plan_json);
  EXPECT_EQ(placements_, 1) << "a replay places nothing";
  EXPECT_EQ(ledger_->Occupancy().busy_gpu_count(), 16);

  absl::StatusOr<ReserveOutcome> other = reserver.Reserve(Command("tp=8,pp=1,dp=1", "job-7"));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kAlreadyExists) << other.status();
  EXPECT_THAT(other.status().message(), HasSubstr("use a new request_id"));
}

// A concurrent Reserve that takes the chosen GPUs between placing and recording, for the
// first `races` placements through `port`.
void RaceAfterPlacing(TestPlacementPort& port, store::Ledger* ledger, int races, int* placed) {
  port.after_place = [=](const absl::StatusOr<PlacementPlan>& plan) {
    if (plan.ok() && (*placed)++ < races) {
      store::ReserveRequest thief;
      for (const RankSlot& slot : plan->ranks) thief.gpus.push_back(slot.gpu);
      thief.job_spec = "tp=1";
      EXPECT_TRUE(ledger->Reserve(thief).ok());
    }
  };
}

TEST_F(ReserverTest, PlacesAgainWhenAConcurrentReserveTakesItsGpus) {
  int placed = 0;
  RaceAfterPlacing(port_, ledger_.get(), /*races=*/2, &placed);
  const Reserver reserver(Ports());
  absl::StatusOr<ReserveOutcome> out = reserver.Reserve(Command("tp=8,pp=1,dp=1"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(placements_, 3);
  EXPECT_EQ(ledger_->Occupancy().busy_gpu_count(), 24) << "two thieves and the job, 8 GPUs each";
}

TEST_F(ReserverTest, GivesUpWithAbortedAfterKAttemptsLostRaces) {
  int placed = 0;
  RaceAfterPlacing(port_, ledger_.get(), /*races=*/100, &placed);
  const Reserver reserver(Ports());
  absl::StatusOr<ReserveOutcome> out = reserver.Reserve(Command("tp=8,pp=1,dp=1"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kAborted) << out.status();
  EXPECT_EQ(placements_, Reserver::kAttempts);
}

// A ledger whose Reserve waits until `callers` Reserves have come (at most 30 s), so that
// they all write at once, and counts the lost races (ABORTED) it answers.
class GatedLedger final : public store::ForwardingLedger {
 public:
  GatedLedger(store::Ledger& inner, int callers) : ForwardingLedger(inner), waiting_for_(callers) {}

  absl::StatusOr<ledger::Allocation> Reserve(const store::ReserveRequest& request) override {
    {
      absl::MutexLock lock(&mu_);
      --waiting_for_;
      mu_.AwaitWithTimeout(absl::Condition(this, &GatedLedger::AllCame), absl::Seconds(30));
    }
    absl::StatusOr<ledger::Allocation> out = inner().Reserve(request);
    if (absl::IsAborted(out.status())) ++lost_races;
    return out;
  }

  std::atomic<int> lost_races{0};

 private:
  bool AllCame() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return waiting_for_ <= 0; }

  mutable absl::Mutex mu_;
  int waiting_for_ ABSL_GUARDED_BY(mu_);
};

// Hardening round four, finding 8: concurrent 1-GPU Reserves all placed on the first free
// GPU, and all but one lost the race in the ledger.
TEST_F(ReserverTest, ConcurrentReservesArePlacedAroundEachOthersGpus) {
  constexpr int kReserves = 4;
  GatedLedger gated(*ledger_, kReserves);
  ReserverPorts ports = Ports();
  ports.ledger = &gated;
  const Reserver reserver(std::move(ports));
  std::vector<absl::StatusOr<ReserveOutcome>> outs(kReserves, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < kReserves; ++i) {
    threads.emplace_back(
        [&, i] { outs[i] = reserver.Reserve(Command("tp=1,pp=1,dp=1,gpus_per_node=1")); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& out : outs) ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(gated.lost_races.load(), 0) << "every Reserve was placed on the same free GPU";
  EXPECT_EQ(placements_, kReserves) << "each placed once";
  EXPECT_EQ(ledger_->Occupancy().busy_gpu_count(), kReserves);
}

TEST_F(ReserverTest, PlacesWithTheLoadAndExclusionsItsPortsGiveAndRecordsTheClientsSpec) {
  ReserverPorts ports = Ports();
  const std::vector<double> busy(fabric_->switches().size(), 0.5);
  port_.uplink_busy = busy;
  const std::string excluded = fabric_->hosts()[0].name;
  port_.exclude_failed = [&](JobSpec& job) {
    job.exclude.push_back(excluded);
    return absl::OkStatus();
  };
  const HeldUplinkLoad live(*fabric_);
  ports.live_load = &live;
  const Reserver reserver(std::move(ports));
  // Six nodes: more than a block, so the plan sends bytes up the leaves.
  absl::StatusOr<ReserveOutcome> out = reserver.Reserve(Command("tp=8,pp=2,dp=3,model=7b"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(last_request_.uplink_busy, busy);
  EXPECT_TRUE(last_request_.link_loads) << "live load stores each plan's offer";
  EXPECT_FALSE(out->allocation.uplink_offer.empty()) << "kept with the allocation";
  EXPECT_EQ(out->allocation.uplink_offer, live.OfferOf(*out->plan));
  EXPECT_THAT(out->plan_json, Not(HasSubstr("uplink_offer"))) << "the plan as placed";
  for (HostId h : out->plan->node_hosts) EXPECT_NE(h, 0) << "the excluded host was used";
  EXPECT_EQ(out->allocation.job_spec, FormatJobSpec(*ParseJobSpec("tp=8,pp=2,dp=3,model=7b")))
      << "exclusions are the placement's, not the recorded spec's";
}

TEST_F(ReserverTest, AnExclusionErrorPlacesNothing) {
  ReserverPorts ports = Ports();
  port_.exclude_failed = [](JobSpec&) {
    return absl::InvalidArgumentError("replace_on_restart: no allocation alloc-9");
  };
  const Reserver reserver(std::move(ports));
  absl::StatusOr<ReserveOutcome> out =
      reserver.Reserve(Command("tp=8,pp=1,dp=1,replace_on_restart=alloc-9"));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_EQ(placements_, 0);
  EXPECT_EQ(ledger_->Occupancy().busy_gpu_count(), 0);
}

}  // namespace
}  // namespace topoplace::sched
