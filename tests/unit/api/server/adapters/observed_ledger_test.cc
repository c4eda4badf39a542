// The observed ledger tells its observer after every change that succeeded (Reserve,
// Renew, Commit, Release, a sweep that reclaimed something) and never after a refused one
// or a read; the changes themselves are the wrapped ledger's.
#include "api/server/adapters/observed_ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/ledger/clock.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::server {
namespace {

TEST(ObservedLedger, CallsTheObserverAfterEachChangeThatSucceeded) {
  FabricPtr fabric = *GenerateClos(testing::TinyClos(/*blocks=*/1, /*nodes=*/2));
  testing::TempDir dir;
  ledger::FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  auto inner = store::SqliteLedger::Open(dir.File("ledger.db"), fabric, clock);
  ASSERT_TRUE(inner.ok()) << inner.status();
  int changes = 0;
  ObservedLedger ledger(**inner, [&changes] { ++changes; });

  store::ReserveRequest request;
  request.gpus = {0, 1};
  request.ttl = absl::Seconds(10);
  absl::StatusOr<ledger::Allocation> held = ledger.Reserve(request);
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(ledger.Reserve(request).status().code(), absl::StatusCode::kAborted);  // GPUs held
  EXPECT_EQ(changes, 1) << "a refused change is not a change";
  ASSERT_TRUE(ledger.Get(held->id).ok());
  (void)ledger.ListLive();
  (void)ledger.Occupancy();
  EXPECT_EQ(changes, 1) << "reads are not changes";
  ASSERT_TRUE(ledger.Renew(held->id, absl::Seconds(20)).ok());
  ASSERT_TRUE(ledger.Commit(held->id, "slurm:7").ok());
  ASSERT_TRUE(ledger.Release(held->id).ok());
  EXPECT_EQ(changes, 4);

  // A sweep that reclaims an expired reservation is a change; one with nothing to do is not.
  request.gpus = {2};
  ASSERT_TRUE(ledger.Reserve(request).ok());
  EXPECT_EQ(changes, 5);
  ASSERT_EQ(*ledger.ReclaimExpired(), 0);
  EXPECT_EQ(changes, 5);
  clock.Advance(absl::Seconds(11));
  ASSERT_EQ(*ledger.ReclaimExpired(), 1);
  EXPECT_EQ(changes, 6);
  EXPECT_EQ((*inner)->expired_reservations(), 1);
}

}  // namespace
}  // namespace topoplace::server
