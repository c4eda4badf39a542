// The SQLite ledger on real files with a hand-moved clock: the ledger specification every
// backend meets (tests/testing/ledger_contract.h), then what only a file can get wrong.
#include "store/sqlite/sqlite_ledger.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "store/sqlite/sqlite_db.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "tests/testing/ledger_contract.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::ledger {
namespace {

using contract::Gpus;
using contract::Request;

// Each test's ledger in a file of its own temporary directory.
struct SqliteBackend {
  static absl::Status Available() { return absl::OkStatus(); }
  std::unique_ptr<store::SqliteLedger> Open(FabricPtr fabric, const Clock& clock) {
    auto ledger = store::SqliteLedger::Open(dir.File("ledger.db"), std::move(fabric), clock);
    EXPECT_TRUE(ledger.ok()) << ledger.status();
    return ledger.ok() ? std::move(*ledger) : nullptr;
  }

  testing::TempDir dir;
};

}  // namespace
}  // namespace topoplace::ledger

namespace topoplace::ledger::contract {
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, LedgerContract, ::topoplace::ledger::SqliteBackend);
}  // namespace topoplace::ledger::contract

namespace topoplace::ledger {
namespace {

class LedgerTest : public ::testing::Test {
 protected:
  LedgerTest() : clock_(absl::FromUnixSeconds(1'700'000'000)) {
    fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/1, /*nodes=*/4, /*gpus=*/8, /*rails=*/8));
  }

  std::unique_ptr<store::SqliteLedger> OpenLedger() { return backend_.Open(fabric_, clock_); }

  SqliteBackend backend_;
  testing::TempDir& dir_ = backend_.dir;
  FakeClock clock_;
  FabricPtr fabric_;
};

TEST_F(LedgerTest, Ledger_RefusesADatabaseWrittenByANewerSchema) {
  OpenLedger().reset();
  {
    auto db = store::SqliteDb::Open(dir_.File("ledger.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO schema_migrations VALUES ('ledger', 99, 0)").ok());
  }
  auto ledger = store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  ASSERT_FALSE(ledger.ok());
  EXPECT_EQ(ledger.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(ledger.status().message().find("99"), std::string::npos) << ledger.status();
}

// A database from before the offer had rows of its own kept it in the plan's JSON: the
// schema step copies every well-formed entry, in order, and skips the rest (a bare
// string, a number or an entry without a rate) without failing.
TEST_F(LedgerTest, Ledger_SchemaStepMovesOffersOutOfOlderPlans) {
  std::string id;
  {
    auto ledger = OpenLedger();
    store::ReserveRequest request = Request(Gpus(0, 8));
    request.plan_json =
        "{\"schema\": \"topoplace.plan/v1\", \"uplink_offer\": [{\"switch\": \"leaf-a\", "
        "\"bytes_per_second\": 2.5e9}, {\"switch\": 7}, \"leaf-c\", 12, {\"switch\": \"leaf-d\"}, "
        "{\"switch\": \"leaf-b\", "
        "\"bytes_per_second\": 40000000000}]}";
    id = ledger->Reserve(request)->id;
    store::ReserveRequest plain = Request(Gpus(8, 8));
    plain.plan_json = "not json";
    ASSERT_TRUE(ledger->Reserve(plain).ok());
  }
  {
    // The database as schema version 3 left it (steps 4 and 5 undone; 5 is re-applied
    // too, and its column reads as unknown ends).
    auto db = store::SqliteDb::Open(dir_.File("ledger.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("DROP TABLE allocation_uplink_offers;"
                           "ALTER TABLE allocations DROP COLUMN expected_end_us;"
                           "DELETE FROM schema_migrations WHERE component = 'ledger'"
                           " AND version >= 4")
                    .ok());
  }
  auto ledger = OpenLedger();
  ASSERT_NE(ledger, nullptr);
  const std::vector<UplinkOffer> moved = {{"leaf-a", 2.5e9}, {"leaf-b", 4e10}};
  EXPECT_EQ(ledger->Get(id)->uplink_offer, moved);
  EXPECT_TRUE(ledger->Get("alloc-2")->uplink_offer.empty());
  EXPECT_EQ(ledger->Get(id)->expected_end, absl::InfiniteFuture());
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
  auto refused = store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_NE(refused.status().message().find("ledger.db.ledger-watermark"), std::string::npos);
  EXPECT_NE(refused.status().message().find("accept_ledger_loss"), std::string::npos);

  // The operator accepts the loss: the ledger starts, and no id is handed out again.
  auto accepted =
      store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, clock_, {.accept_loss = true});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ((*accepted)->warnings().size(), 1u);
  auto next = (*accepted)->Reserve(Request(Gpus(0, 8)));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_NE(next->id, committed);
  EXPECT_GT(*ParseAllocationId(next->id), *ParseAllocationId(committed));
}

// A crash, then the -wal deleted: the main file alone is older than what was acknowledged.
// Hardening finding 1: the database's directory deleted under a running daemon. SQLite
// keeps writing to the unlinked files, so the daemon used to acknowledge changes nobody
// would ever read again. Now every change is refused, naming the file, and nothing is
// acknowledged; reads still answer from what the ledger holds.
TEST_F(LedgerTest, Ledger_RefusesChangesOnceItsDatabaseDirectoryIsDeleted) {
  const std::string dir = dir_.File("state");
  std::filesystem::create_directory(dir);
  auto ledger = store::SqliteLedger::Open(dir + "/ledger.db", fabric_, clock_);
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  auto held = (*ledger)->Reserve(Request(Gpus(0, 8)));
  ASSERT_TRUE(held.ok()) << held.status();

  std::filesystem::remove_all(dir);
  auto refused = (*ledger)->Reserve(Request(Gpus(8, 8)));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable) << refused.status();
  EXPECT_NE(refused.status().message().find(dir + "/ledger.db"), std::string::npos)
      << refused.status();
  EXPECT_NE(refused.status().message().find("deleted"), std::string::npos) << refused.status();
  EXPECT_FALSE((*ledger)->Commit(held->id, "slurm:7").ok());
  EXPECT_FALSE((*ledger)->Release(held->id).ok());
  EXPECT_FALSE((*ledger)->WriteState().ok());
  EXPECT_FALSE((*ledger)->ProbeWrites().ok());  // the sweeper's probe does not clear it
  EXPECT_EQ((*ledger)->held_gpus(), 8);
}

// The same for a database replaced by another file (an old copy put back under the daemon).
TEST_F(LedgerTest, Ledger_RefusesChangesOnceItsDatabaseFileIsReplaced) {
  auto ledger = OpenLedger();
  ASSERT_TRUE(ledger->Reserve(Request(Gpus(0, 8))).ok());
  std::filesystem::copy_file(dir_.File("ledger.db"), dir_.File("copy.db"));
  std::filesystem::rename(dir_.File("copy.db"), dir_.File("ledger.db"));
  auto refused = ledger->Reserve(Request(Gpus(8, 8)));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable) << refused.status();
}

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
  auto refused = store::SqliteLedger::Open(db, fabric_, clock_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
}

TEST_F(LedgerTest, Ledger_EveryGpuOfALargeReservationIsStoredAndHeldAgainAfterAReopen) {
  // 130 GPUs: the held-GPU rows go to SQLite 64 to a statement, so two full statements and
  // a short one; a reopen rebuilds the live state from those rows alone.
  fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/16, /*gpus=*/8, /*rails=*/8));
  std::string id;
  {
    auto ledger = OpenLedger();
    auto a = ledger->Reserve(Request(Gpus(3, 130)));
    ASSERT_TRUE(a.ok()) << a.status();
    id = a->id;
  }
  auto ledger = OpenLedger();
  ASSERT_NE(ledger, nullptr);
  auto reopened = ledger->Get(id);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ASSERT_EQ(reopened->gpus.size(), 130u);
  for (size_t i = 0; i < 130; ++i) {
    const Gpu& gpu = fabric_->gpus()[3 + i];
    EXPECT_EQ(reopened->gpus[i].host, fabric_->hosts()[gpu.host].name) << i;
    EXPECT_EQ(reopened->gpus[i].index, gpu.index) << i;
  }
  // Held still: the first, a middle one of the second statement and the last are refused.
  for (GpuId held : {3, 100, 132}) {
    auto clash = ledger->Reserve(Request(Gpus(held, 1)));
    EXPECT_FALSE(clash.ok()) << "GPU " << held;
  }
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(133, 1))).ok());
  EXPECT_TRUE(ledger->Release(id).ok());
  EXPECT_TRUE(ledger->Reserve(Request(Gpus(100, 1))).ok());
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
  auto ledger = store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, clock_);
  EXPECT_EQ(ledger.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(ledger.status().message().find("ledger-watermark"), std::string::npos);
}

}  // namespace
}  // namespace topoplace::ledger
