// Specification of the allocation ledger on real SQLite files with a hand-moved clock.
#include "scheduler/ledger/allocation_ledger.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/store/sqlite_db.h"

namespace topoplace::ledger {
namespace {

class LedgerTest : public ::testing::Test {
 protected:
  LedgerTest() : clock_(absl::FromUnixSeconds(1'700'000'000)) {
    fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/1, /*nodes=*/4, /*gpus=*/8, /*rails=*/8));
  }

  std::unique_ptr<AllocationLedger> OpenLedger() {
    auto ledger = AllocationLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
    EXPECT_TRUE(ledger.ok()) << ledger.status();
    return ledger.ok() ? std::move(*ledger) : nullptr;
  }

  // GPUs [first, first + count) in fabric order.
  static std::vector<GpuId> Gpus(GpuId first, int count) {
    std::vector<GpuId> out;
    for (int i = 0; i < count; ++i) out.push_back(first + i);
    return out;
  }

  static ReserveRequest Request(std::vector<GpuId> gpus, absl::Duration ttl = absl::Seconds(30)) {
    return {.gpus = std::move(gpus),
            .job_spec = "tp=8",
            .policy = "topoplace",
            .fabric_version = 1,
            .plan_json = "{}",
            .ttl = ttl,
            .request_id = ""};
  }

  testing::TempDir dir_;
  FakeClock clock_;
  FabricPtr fabric_;
};

TEST_F(LedgerTest, Ledger_ReserveCommitSurvivesReopenAndKeepsGpusBusy) {
  std::string id;
  {
    auto ledger = OpenLedger();
    auto a = ledger->Reserve(Request(Gpus(0, 8)));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->state, AllocationState::kReserved);
    EXPECT_EQ(a->expires_at, clock_.Now() + absl::Seconds(30));
    id = a->id;
    auto c = ledger->Commit(id, "slurm:101");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->state, AllocationState::kCommitted);
    EXPECT_EQ(c->expires_at, absl::InfiniteFuture());
  }
  clock_.Advance(absl::Hours(48));  // commits never expire
  auto ledger = OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  sched::Occupancy occ = ledger->Occupancy();
  for (GpuId g = 0; g < 8; ++g) EXPECT_TRUE(occ.busy(g)) << g;
  EXPECT_FALSE(occ.busy(8));
  auto a = ledger->Get(id);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->external_id, "slurm:101");
  ASSERT_EQ(a->gpus.size(), 8u);
  EXPECT_EQ(a->gpus[3], (GpuRef{fabric_->hosts()[0].name, 3}));
  EXPECT_EQ(ledger->GetByExternalId("slurm:101")->id, id);
}

TEST_F(LedgerTest, Ledger_OverlappingReserveIsAbortedAndTakesNothing) {
  auto ledger = OpenLedger();
  ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 4))).ok());
  auto clash = ledger->Reserve(Request(Gpus(2, 4)));  // GPUs 2..5; 2 and 3 are held
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(clash.status().message().find("alloc-1"), std::string::npos) << clash.status();
  EXPECT_EQ(ledger->held_gpus(), 4);
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(4, 4))).ok());  // 4 and 5 were not taken
}

TEST_F(LedgerTest, Ledger_NeverDoubleBooksAGpuUnderConcurrentReserves) {
  auto ledger = OpenLedger();
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
  std::vector<int> holders(fabric_->gpus().size(), 0);
  for (const Allocation& a : *live) {
    for (const GpuRef& g : a.gpus) {
      GpuId id = fabric_->hosts()[*fabric_->FindHost(g.host)].gpus[g.index];
      EXPECT_EQ(++holders[id], 1) << "GPU " << fabric_->GpuName(id) << " held twice";
    }
  }
  // The same holds after a restart, which rebuilds from SQLite alone.
  int64_t held = ledger->held_gpus();
  ledger.reset();
  EXPECT_EQ(OpenLedger()->held_gpus(), held);
}

TEST_F(LedgerTest, Ledger_ExpiredReservationIsReclaimedAndCannotBeCommitted) {
  auto ledger = OpenLedger();
  auto a = ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(30)));
  ASSERT_TRUE(a.ok()) << a.status();
  clock_.Advance(absl::Seconds(31));
  auto c = ledger->Commit(a->id, "slurm:7");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(c.status().message().find("expired"), std::string::npos) << c.status();
  EXPECT_EQ(ledger->held_gpus(), 0);
  EXPECT_EQ(ledger->Get(a->id)->state, AllocationState::kExpired);
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
}

TEST_F(LedgerTest, Ledger_RestartReclaimsReservationsThatExpiredWhileDown) {
  std::string live_id;
  {
    auto ledger = OpenLedger();
    ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(10))).ok());
    live_id = ledger->Reserve(Request(Gpus(8, 8), absl::Seconds(600)))->id;
  }
  clock_.Advance(absl::Seconds(60));
  auto ledger = OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  auto live = ledger->ListLive();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].id, live_id);
  EXPECT_GT((*live)[0].expires_at, clock_.Now());
}

TEST_F(LedgerTest, Ledger_CommitIsIdempotentForTheSameExternalIdOnly) {
  auto ledger = OpenLedger();
  std::string id = ledger->Reserve(Request(Gpus(0, 8)))->id;
  ASSERT_TRUE(ledger->Commit(id, "pg/a").ok());
  EXPECT_TRUE(ledger->Commit(id, "pg/a").ok());
  EXPECT_EQ(ledger->Commit(id, "pg/b").status().code(), absl::StatusCode::kFailedPrecondition);
  std::string other = ledger->Reserve(Request(Gpus(8, 8)))->id;
  EXPECT_EQ(ledger->Commit(other, "pg/a").status().code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(LedgerTest, Ledger_ReleaseFreesGpusAndIsIdempotent) {
  auto ledger = OpenLedger();
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

TEST_F(LedgerTest, Ledger_BadRequestsAreRefusedAndChangeNothing) {
  auto ledger = OpenLedger();
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

TEST_F(LedgerTest, Ledger_RequestIdIsUsedOnceAndFoundAgainAfterRestart) {
  std::string id;
  {
    auto ledger = OpenLedger();
    ReserveRequest first = Request(Gpus(0, 8));
    first.request_id = "job-42/try-1";
    auto a = ledger->Reserve(first);
    ASSERT_TRUE(a.ok()) << a.status();
    id = a->id;
    EXPECT_EQ(a->request_id, "job-42/try-1");
    ReserveRequest again = Request(Gpus(8, 8));  // a retry would place somewhere else
    again.request_id = "job-42/try-1";
    auto retry = ledger->Reserve(again);
    EXPECT_EQ(retry.status().code(), absl::StatusCode::kAlreadyExists) << retry.status();
    EXPECT_NE(retry.status().message().find(id), std::string::npos) << retry.status();
    EXPECT_EQ(ledger->held_gpus(), 8);  // the refused retry took nothing
  }
  auto ledger = OpenLedger();
  auto found = ledger->FindByRequestId("job-42/try-1");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->gpus.size(), 8u);
  EXPECT_EQ(ledger->FindByRequestId("job-43").status().code(), absl::StatusCode::kNotFound);
  // Reservations without a key never collide with each other.
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(8, 8))).ok());
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(16, 8))).ok());
}

TEST_F(LedgerTest, Ledger_RequestIdOfAFinishedAllocationStillFindsIt) {
  auto ledger = OpenLedger();
  ReserveRequest request = Request(Gpus(0, 8), absl::Seconds(10));
  request.request_id = "k";
  std::string id = ledger->Reserve(request)->id;
  clock_.Advance(absl::Seconds(11));
  auto found = ledger->FindByRequestId("k");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->state, AllocationState::kExpired);
}

TEST_F(LedgerTest, Ledger_RenewMovesTheExpiryAndSurvivesRestart) {
  std::string id;
  {
    auto ledger = OpenLedger();
    id = ledger->Reserve(Request(Gpus(0, 8), absl::Seconds(30)))->id;
    clock_.Advance(absl::Seconds(20));
    auto renewed = ledger->Renew(id, absl::Seconds(300));
    ASSERT_TRUE(renewed.ok()) << renewed.status();
    EXPECT_EQ(renewed->expires_at, clock_.Now() + absl::Seconds(300));
  }
  clock_.Advance(absl::Seconds(60));  // past the first expiry, inside the renewed one
  auto ledger = OpenLedger();
  EXPECT_EQ(ledger->held_gpus(), 8);
  EXPECT_EQ(ledger->Get(id)->state, AllocationState::kReserved);
  clock_.Advance(absl::Seconds(300));
  EXPECT_EQ(ledger->Get(id)->state, AllocationState::kExpired);
  EXPECT_EQ(ledger->held_gpus(), 0);
}

TEST_F(LedgerTest, Ledger_RenewRefusesCommittedFinishedUnknownAndBadTtl) {
  auto ledger = OpenLedger();
  std::string committed = ledger->Reserve(Request(Gpus(0, 8)))->id;
  ASSERT_TRUE(ledger->Commit(committed, "slurm:1").ok());
  EXPECT_EQ(ledger->Renew(committed, absl::Seconds(60)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string expired = ledger->Reserve(Request(Gpus(8, 8), absl::Seconds(5)))->id;
  clock_.Advance(absl::Seconds(6));
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
  EXPECT_EQ(ledger->Get(live)->expires_at, clock_.Now() + absl::Seconds(30));
}

TEST_F(LedgerTest, Ledger_RefusesADatabaseWrittenByANewerSchema) {
  OpenLedger().reset();
  {
    auto db = store::SqliteDb::Open(dir_.File("ledger.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO schema_migrations VALUES ('ledger', 99, 0)").ok());
  }
  auto ledger = AllocationLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  ASSERT_FALSE(ledger.ok());
  EXPECT_EQ(ledger.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(ledger.status().message().find("99"), std::string::npos) << ledger.status();
}

// The first finding of the data-loss report: a database file truncated to 0 bytes used to
// start as an empty ledger and hand the lost allocations' GPUs and ids out again.
TEST_F(LedgerTest, Ledger_RefusesADatabaseTruncatedToZeroBytes) {
  std::string committed;
  {
    auto ledger = OpenLedger();
    auto a = ledger->Reserve(Request(Gpus(0, 8)));
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(ledger->Commit(a->id, "slurm:1").ok());
    committed = a->id;
  }
  std::filesystem::resize_file(dir_.File("ledger.db"), 0);
  auto refused = AllocationLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_NE(refused.status().message().find("ledger.db.ledger-watermark"), std::string::npos);
  EXPECT_NE(refused.status().message().find("accept_ledger_loss"), std::string::npos);

  // The operator accepts the loss: the ledger starts, and no id is handed out again.
  auto accepted =
      AllocationLedger::Open(dir_.File("ledger.db"), fabric_, clock_, {.accept_loss = true});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ((*accepted)->warnings().size(), 1u);
  auto next = (*accepted)->Reserve(Request(Gpus(0, 8)));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_NE(next->id, committed);
  EXPECT_GT(*ParseAllocationId(next->id), *ParseAllocationId(committed));
}

// A crash, then the -wal deleted: the main file alone is older than what was acknowledged.
TEST_F(LedgerTest, Ledger_RefusesADatabaseWhoseWalWasLost) {
  const std::string db = dir_.File("ledger.db");
  {
    auto ledger = OpenLedger();
    ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
    // What the main file holds now; the next commits live only in the -wal until a
    // checkpoint, as after a crash.
    std::filesystem::copy_file(db, dir_.File("main-file-only.db"));
    auto b = ledger->Reserve(Request(Gpus(8, 8)));
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE(ledger->Commit(b->id, "slurm:2").ok());
  }
  std::filesystem::copy_file(dir_.File("main-file-only.db"), db,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove(db + "-wal");
  auto refused = AllocationLedger::Open(db, fabric_, clock_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
}

TEST_F(LedgerTest, Ledger_ANewerDatabaseThanItsWatermarkStarts) {
  // The watermark is written after SQLite commits: a crash in between leaves the database
  // ahead, which loses nothing.
  {
    auto ledger = OpenLedger();
    ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
  }
  std::filesystem::copy_file(dir_.File("ledger.db.ledger-watermark"), dir_.File("older-mark"));
  {
    auto ledger = OpenLedger();
    ASSERT_TRUE(ledger->Reserve(Request(Gpus(8, 8))).ok());
  }
  std::filesystem::copy_file(dir_.File("older-mark"), dir_.File("ledger.db.ledger-watermark"),
                             std::filesystem::copy_options::overwrite_existing);
  auto ledger = OpenLedger();
  ASSERT_NE(ledger, nullptr);
  EXPECT_EQ(ledger->ListLive()->size(), 2u);
  EXPECT_TRUE(ledger->WriteState().ok());
}

TEST_F(LedgerTest, Ledger_ADamagedWatermarkIsDataLossNamingIt) {
  OpenLedger().reset();
  std::ofstream(dir_.File("ledger.db.ledger-watermark")) << "topoplace-ledger-watermark/v1 junk\n";
  auto ledger = AllocationLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  EXPECT_EQ(ledger.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(ledger.status().message().find("ledger-watermark"), std::string::npos);
}

}  // namespace
}  // namespace topoplace::ledger
