// The specification every allocation ledger backend meets (store/ports/ledger.h), as
// one typed test suite: each backend's test instantiates it with a fixture type that opens
// its ledger, so the SQLite ledger and the etcd ledger are held to the same tests.
//
//   struct SqliteBackend {
//     static absl::Status Available();                       // OK, or why to skip
//     std::unique_ptr<store::Ledger> Open(FabricPtr, const Clock&);  // same store, fresh process
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, LedgerContract, SqliteBackend);
//
// Open() is called again to model a restart: the previous ledger is destroyed first, and
// the new one must rebuild everything from the store.
#ifndef TOPOPLACE_TESTS_TESTING_LEDGER_CONTRACT_H_
#define TOPOPLACE_TESTS_TESTING_LEDGER_CONTRACT_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/ledger/clock.h"
#include "store/ports/ledger.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::ledger::contract {

// GPUs [first, first + count) in fabric order.
inline std::vector<GpuId> Gpus(GpuId first, int count) {
  std::vector<GpuId> out;
  for (int i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

inline store::ReserveRequest Request(std::vector<GpuId> gpus,
                                     absl::Duration ttl = absl::Seconds(30)) {
  return {.gpus = std::move(gpus),
          .job_spec = "tp=8",
          .policy = "topoplace",
          .fabric_version = 1,
          .plan_json = "{}",
          .uplink_offer = {},
          .ttl = ttl,
          .request_id = ""};
}

template <typename Backend>
class LedgerContract : public ::testing::Test {
 protected:
  LedgerContract() : clock_(absl::FromUnixSeconds(1'700'000'000)) {
    fabric_ = *GenerateClos(
        ::topoplace::testing::TinyClos(/*blocks=*/1, /*nodes=*/4, /*gpus=*/8, /*rails=*/8));
  }

  void SetUp() override {
    if (absl::Status available = Backend::Available(); !available.ok()) {
      GTEST_SKIP() << available.message();
    }
  }

  std::unique_ptr<store::Ledger> OpenLedger() {
    std::unique_ptr<store::Ledger> ledger = backend_.Open(fabric_, clock_);
    EXPECT_NE(ledger, nullptr);
    return ledger;
  }

  FakeClock clock_;
  FabricPtr fabric_;
  Backend backend_;
};

TYPED_TEST_SUITE_P(LedgerContract);

TYPED_TEST_P(LedgerContract, Ledger_ReserveCommitSurvivesReopenAndKeepsGpusBusy) {
  std::string id;
  {
    auto ledger = this->OpenLedger();
    auto a = ledger->Reserve(Request(Gpus(0, 8)));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->state, AllocationState::kReserved);
    EXPECT_EQ(a->expires_at, this->clock_.Now() + absl::Seconds(30));
    id = a->id;
    auto c = ledger->Commit(id, "slurm:101");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->state, AllocationState::kCommitted);
    EXPECT_EQ(c->expires_at, absl::InfiniteFuture());
  }
  this->clock_.Advance(absl::Hours(48));  // commits never expire
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  sched::Occupancy occ = ledger->Occupancy();
  for (GpuId g = 0; g < 8; ++g) EXPECT_TRUE(occ.busy(g)) << g;
  EXPECT_FALSE(occ.busy(8));
  auto a = ledger->Get(id);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->external_id, "slurm:101");
  ASSERT_EQ(a->gpus.size(), 8u);
  EXPECT_EQ(a->gpus[3], (GpuRef{this->fabric_->hosts()[0].name, 3}));
  EXPECT_EQ(ledger->GetByExternalId("slurm:101")->id, id);
}

TYPED_TEST_P(LedgerContract, Ledger_OverlappingReserveIsAbortedAndTakesNothing) {
  auto ledger = this->OpenLedger();
  ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 4))).ok());
  auto clash = ledger->Reserve(Request(Gpus(2, 4)));  // GPUs 2..5; 2 and 3 are held
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(clash.status().message().find("alloc-1"), std::string::npos) << clash.status();
  EXPECT_EQ(ledger->held_gpus(), 4);
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(4, 4))).ok());  // 4 and 5 were not taken
}

// A preemption's Reserve releases its victims in the same change (hardening round four,
// finding 2): on success they are released and the GPUs held again; when the Reserve
// fails (a GPU held by an allocation that is not a victim) nothing changes, the victims
// included.
TYPED_TEST_P(LedgerContract, Ledger_AReserveReleasingItsVictimsIsOneChange) {
  auto ledger = this->OpenLedger();
  auto victim = ledger->Reserve(Request(Gpus(0, 8)));
  ASSERT_TRUE(victim.ok()) << victim.status();
  ASSERT_TRUE(ledger->Commit(victim->id, "k8s:ml/low").ok());
  auto bystander = ledger->Reserve(Request(Gpus(8, 4)));
  ASSERT_TRUE(bystander.ok()) << bystander.status();

  // GPUs 4..11: the victim's 4..7 are free for it, the bystander's 8..11 are not.
  store::ReserveRequest too_wide = Request(Gpus(4, 8));
  too_wide.releasing = {victim->id};
  auto refused = ledger->Reserve(too_wide);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAborted) << refused.status();
  EXPECT_NE(refused.status().message().find(bystander->id), absl::string_view::npos)
      << refused.status();
  EXPECT_EQ(ledger->Get(victim->id)->state, AllocationState::kCommitted) << "nothing released";
  EXPECT_EQ(ledger->GetByExternalId("k8s:ml/low")->id, victim->id);
  EXPECT_EQ(ledger->held_gpus(), 12);

  store::ReserveRequest preempting = Request(Gpus(0, 8));
  preempting.releasing = {victim->id, "alloc-999"};  // one never live: passed over
  auto held = ledger->Reserve(preempting);
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(ledger->Get(victim->id)->state, AllocationState::kReleased);
  EXPECT_FALSE(ledger->GetByExternalId("k8s:ml/low").ok()) << "its external id is free";
  EXPECT_EQ(ledger->held_gpus(), 12);
  EXPECT_TRUE(ledger->Occupancy().busy(3));

  // The change survives a reopen, as one.
  ledger.reset();
  ledger = this->OpenLedger();
  EXPECT_EQ(ledger->Get(victim->id)->state, AllocationState::kReleased);
  EXPECT_EQ(ledger->Get(held->id)->state, AllocationState::kReserved);
  EXPECT_EQ(ledger->held_gpus(), 12);

  store::ReserveRequest bad = Request(Gpus(12, 1));
  bad.releasing = {"not-an-id"};
  EXPECT_EQ(ledger->Reserve(bad).status().code(), absl::StatusCode::kInvalidArgument);
}

TYPED_TEST_P(LedgerContract, Ledger_NeverDoubleBooksAGpuUnderConcurrentReserves) {
  auto ledger = this->OpenLedger();
  // 8 threads x 20 attempts, each on one of 6 overlapping windows of 8 GPUs over the first
  // 16: most attempts must be refused, and no GPU may end up with two holders.
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        GpuId first = static_cast<GpuId>((t + i) % 6 * 2);
        auto a = ledger->Reserve(Request(Gpus(first, 8)));
        if (a.ok()) {
          ++granted;
          if (i % 3 == 0) {
            EXPECT_TRUE(ledger->Release(a->id).ok());
          }
        } else {
          EXPECT_EQ(a.status().code(), absl::StatusCode::kAborted) << a.status();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_GT(granted.load(), 0);
  auto live = ledger->ListLive();
  ASSERT_TRUE(live.ok()) << live.status();
  std::vector<int> holders(this->fabric_->gpus().size(), 0);
  for (const Allocation& a : *live) {
    for (const GpuRef& g : a.gpus) {
      GpuId id = this->fabric_->hosts()[*this->fabric_->FindHost(g.host)].gpus[g.index];
      EXPECT_EQ(++holders[id], 1) << "GPU " << this->fabric_->GpuName(id) << " held twice";
    }
  }
  // The same holds after a restart, which rebuilds from SQLite alone.
  int64_t held = ledger->held_gpus();
  ledger.reset();
  EXPECT_EQ(this->OpenLedger()->held_gpus(), held);
}

TYPED_TEST_P(LedgerContract, Ledger_ExpiredReservationIsReclaimedAndCannotBeCommitted) {
  auto ledger = this->OpenLedger();
  auto a = ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(30)));
  ASSERT_TRUE(a.ok()) << a.status();
  this->clock_.Advance(absl::Seconds(31));
  auto c = ledger->Commit(a->id, "slurm:7");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(c.status().message().find("expired"), std::string::npos) << c.status();
  EXPECT_EQ(ledger->held_gpus(), 0);
  EXPECT_EQ(ledger->Get(a->id)->state, AllocationState::kExpired);
  EXPECT_EQ(ledger->expired_reservations(), 1);  // what topoplaced's metrics export
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
}

TYPED_TEST_P(LedgerContract, Ledger_RestartReclaimsReservationsThatExpiredWhileDown) {
  std::string live_id;
  {
    auto ledger = this->OpenLedger();
    ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(10))).ok());
    live_id = ledger->Reserve(Request(Gpus(8, 8), absl::Seconds(600)))->id;
  }
  this->clock_.Advance(absl::Seconds(60));
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  auto live = ledger->ListLive();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].id, live_id);
  EXPECT_GT((*live)[0].expires_at, this->clock_.Now());
}

TYPED_TEST_P(LedgerContract, Ledger_CommitIsIdempotentForTheSameExternalIdOnly) {
  auto ledger = this->OpenLedger();
  std::string id = ledger->Reserve(Request(Gpus(0, 8)))->id;
  ASSERT_TRUE(ledger->Commit(id, "pg/a").ok());
  EXPECT_TRUE(ledger->Commit(id, "pg/a").ok());
  EXPECT_EQ(ledger->Commit(id, "pg/b").status().code(), absl::StatusCode::kFailedPrecondition);
  std::string other = ledger->Reserve(Request(Gpus(8, 8)))->id;
  EXPECT_EQ(ledger->Commit(other, "pg/a").status().code(), absl::StatusCode::kAlreadyExists);
}

TYPED_TEST_P(LedgerContract, Ledger_ReleaseFreesGpusAndIsIdempotent) {
  auto ledger = this->OpenLedger();
  std::string id = ledger->Reserve(Request(Gpus(0, 8)))->id;
  ASSERT_TRUE(ledger->Commit(id, "slurm:9").ok());
  auto r = ledger->Release(id);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->state, AllocationState::kReleased);
  EXPECT_EQ(ledger->held_gpus(), 0);
  EXPECT_EQ(ledger->Release(id)->state, AllocationState::kReleased);
  EXPECT_EQ(ledger->Commit(id, "slurm:9").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
}

TYPED_TEST_P(LedgerContract, Ledger_BadRequestsAreRefusedAndChangeNothing) {
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(-5))).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Reserve(Request(Gpus(0, 8), absl::Hours(25))).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Reserve(Request({})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Reserve(Request({1, 1})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Reserve(Request({-1})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Commit("alloc-99", "x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ledger->Commit("nonsense", "x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ledger->Release("alloc-0").status().code(), absl::StatusCode::kNotFound);
  std::string id = ledger->Reserve(Request(Gpus(0, 8)))->id;
  EXPECT_EQ(ledger->Commit(id, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Get(id)->state, AllocationState::kReserved);
  EXPECT_EQ(ledger->held_gpus(), 8);
}

TYPED_TEST_P(LedgerContract, Ledger_RequestIdIsUsedOnceAndFoundAgainAfterRestart) {
  std::string id;
  {
    auto ledger = this->OpenLedger();
    store::ReserveRequest first = Request(Gpus(0, 8));
    first.request_id = "job-42/try-1";
    auto a = ledger->Reserve(first);
    ASSERT_TRUE(a.ok()) << a.status();
    id = a->id;
    EXPECT_EQ(a->request_id, "job-42/try-1");
    store::ReserveRequest again = Request(Gpus(8, 8));  // a retry would place somewhere else
    again.request_id = "job-42/try-1";
    auto retry = ledger->Reserve(again);
    EXPECT_EQ(retry.status().code(), absl::StatusCode::kAlreadyExists) << retry.status();
    EXPECT_NE(retry.status().message().find(id), std::string::npos) << retry.status();
    EXPECT_EQ(ledger->held_gpus(), 8);  // the refused retry took nothing
  }
  auto ledger = this->OpenLedger();
  auto found = ledger->FindByRequestId("job-42/try-1");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->gpus.size(), 8u);
  EXPECT_EQ(ledger->FindByRequestId("job-43").status().code(), absl::StatusCode::kNotFound);
  // Reservations without a key never collide with each other.
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(8, 8))).ok());
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(16, 8))).ok());
}

TYPED_TEST_P(LedgerContract, Ledger_RequestIdOfAFinishedAllocationStillFindsIt) {
  auto ledger = this->OpenLedger();
  store::ReserveRequest request = Request(Gpus(0, 8), absl::Seconds(10));
  request.request_id = "k";
  std::string id = ledger->Reserve(request)->id;
  this->clock_.Advance(absl::Seconds(11));
  auto found = ledger->FindByRequestId("k");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->state, AllocationState::kExpired);
}

TYPED_TEST_P(LedgerContract, Ledger_RenewMovesTheExpiryAndSurvivesRestart) {
  std::string id;
  {
    auto ledger = this->OpenLedger();
    id = ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(30)))->id;
    this->clock_.Advance(absl::Seconds(20));
    auto renewed = ledger->Renew(id, absl::Seconds(300));
    ASSERT_TRUE(renewed.ok()) << renewed.status();
    EXPECT_EQ(renewed->expires_at, this->clock_.Now() + absl::Seconds(300));
  }
  this->clock_.Advance(absl::Seconds(60));  // past the first expiry, inside the renewed one
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  EXPECT_EQ(ledger->Get(id)->state, AllocationState::kReserved);
  this->clock_.Advance(absl::Seconds(300));
  EXPECT_EQ(ledger->Get(id)->state, AllocationState::kExpired);
  EXPECT_EQ(ledger->held_gpus(), 0);
}

TYPED_TEST_P(LedgerContract, Ledger_RenewRefusesCommittedFinishedUnknownAndBadTtl) {
  auto ledger = this->OpenLedger();
  std::string committed = ledger->Reserve(Request(Gpus(0, 8)))->id;
  ASSERT_TRUE(ledger->Commit(committed, "slurm:1").ok());
  EXPECT_EQ(ledger->Renew(committed, absl::Seconds(60)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string expired = ledger->Reserve(Request(Gpus(8, 8), absl::Seconds(5)))->id;
  this->clock_.Advance(absl::Seconds(6));
  auto late = ledger->Renew(expired, absl::Seconds(60));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(late.status().message().find("expired"), std::string::npos) << late.status();
  EXPECT_EQ(ledger->Renew("alloc-99", absl::Seconds(60)).status().code(),
            absl::StatusCode::kNotFound);
  std::string live = ledger->Reserve(Request(Gpus(8, 8), absl::Seconds(30)))->id;
  EXPECT_EQ(ledger->Renew(live, absl::Seconds(0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Renew(live, absl::Hours(25)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->Get(live)->expires_at, this->clock_.Now() + absl::Seconds(30));
}

// The uplink offer is data of the allocation, kept as given: read back live, after a
// restart and once finished, with names and rates exact.
TYPED_TEST_P(LedgerContract, Ledger_UplinkOfferIsKeptWithTheAllocationAsGiven) {
  const std::vector<UplinkOffer> offer = {{"leaf 0", 1.5e9}, {"spine-\"1\"", 0.1 + 0.2}};
  std::string id;
  {
    auto ledger = this->OpenLedger();
    store::ReserveRequest request = Request(Gpus(0, 8));
    request.uplink_offer = offer;
    auto a = ledger->Reserve(request);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->uplink_offer, offer);
    id = a->id;
    EXPECT_TRUE(ledger->Reserve(Request(Gpus(8, 8))).ok());
    int seen = 0;
    ledger->ForEachLive([&](const Allocation& live) {
      EXPECT_EQ(live.uplink_offer, live.id == id ? offer : std::vector<UplinkOffer>{});
      ++seen;
    });
    EXPECT_EQ(seen, 2);
  }
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->Get(id)->uplink_offer, offer);
  ASSERT_TRUE(ledger->Release(id).ok());
  EXPECT_EQ(ledger->Get(id)->uplink_offer, offer);
}

// The run a Reserve is told of is kept as the allocation's expected end, through its
// commit and a restart; without one the end is unknown; a negative run changes nothing.
TYPED_TEST_P(LedgerContract, Ledger_ExpectedEndIsTheReservesRunAndSurvivesCommitAndRestart) {
  std::string id, unknown;
  const absl::Time reserved_at = this->clock_.Now();
  {
    auto ledger = this->OpenLedger();
    store::ReserveRequest request = Request(Gpus(0, 8));
    request.expected_run = absl::Hours(8);
    auto a = ledger->Reserve(request);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->expected_end, reserved_at + absl::Hours(8));
    id = a->id;
    unknown = ledger->Reserve(Request(Gpus(8, 8)))->id;
    EXPECT_EQ(ledger->Get(unknown)->expected_end, absl::InfiniteFuture());
    this->clock_.Advance(absl::Seconds(5));
    ASSERT_TRUE(ledger->Commit(id, "slurm:7").ok());
    store::ReserveRequest negative = Request(Gpus(16, 8));
    negative.expected_run = absl::Seconds(-1);
    EXPECT_EQ(ledger->Reserve(negative).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ledger->held_gpus(), 16);
  }
  auto ledger = this->OpenLedger();
  EXPECT_EQ(ledger->Get(id)->expected_end, reserved_at + absl::Hours(8));
  EXPECT_EQ(ledger->Get(unknown)->expected_end, absl::InfiniteFuture());
  int seen = 0;
  ledger->ForEachLive([&](const Allocation& live) {
    if (live.id == id) {
      EXPECT_EQ(live.expected_end, reserved_at + absl::Hours(8));
    }
    ++seen;
  });
  EXPECT_EQ(seen, 2);
}

REGISTER_TYPED_TEST_SUITE_P(LedgerContract, Ledger_ReserveCommitSurvivesReopenAndKeepsGpusBusy,
                            Ledger_OverlappingReserveIsAbortedAndTakesNothing,
                            Ledger_AReserveReleasingItsVictimsIsOneChange,
                            Ledger_NeverDoubleBooksAGpuUnderConcurrentReserves,
                            Ledger_ExpiredReservationIsReclaimedAndCannotBeCommitted,
                            Ledger_RestartReclaimsReservationsThatExpiredWhileDown,
                            Ledger_CommitIsIdempotentForTheSameExternalIdOnly,
                            Ledger_ReleaseFreesGpusAndIsIdempotent,
                            Ledger_BadRequestsAreRefusedAndChangeNothing,
                            Ledger_RequestIdIsUsedOnceAndFoundAgainAfterRestart,
                            Ledger_RequestIdOfAFinishedAllocationStillFindsIt,
                            Ledger_RenewMovesTheExpiryAndSurvivesRestart,
                            Ledger_RenewRefusesCommittedFinishedUnknownAndBadTtl,
                            Ledger_UplinkOfferIsKeptWithTheAllocationAsGiven,
                            Ledger_ExpectedEndIsTheReservesRunAndSurvivesCommitAndRestart);

}  // namespace topoplace::ledger::contract

#endif  // TOPOPLACE_TESTS_TESTING_LEDGER_CONTRACT_H_
