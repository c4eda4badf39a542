// The uplink load of the allocations a ledger holds: each live allocation counts with the
// offer stored in its plan, once, and stops counting when it is released.
#include "scheduler/load/held_uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/ledger/clock.h"
#include "scheduler/placement/engine.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

TEST(HeldUplinkLoad, CountsEachLiveAllocationsStoredOfferUntilItIsReleased) {
  FabricPtr fabric =
      *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2, /*gpus=*/8, /*rails=*/8));
  testing::TempDir dir;
  auto ledger = store::SqliteLedger::Open(dir.File("ledger.db"), fabric, ledger::RealClock());
  ASSERT_TRUE(ledger.ok()) << ledger.status();

  // A job of four nodes spans both blocks, so its plan sends bytes up the leaves.
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=2,dp=2,model=7b");
  request.link_loads = true;
  absl::StatusOr<PlacementPlan> plan = PlacementEngine(fabric).Place(request, Occupancy(*fabric));
  ASSERT_TRUE(plan.ok()) << plan.status();
  HeldUplinkLoad held(*fabric);
  store::ReserveRequest reserve;
  for (const RankSlot& slot : plan->ranks) reserve.gpus.push_back(slot.gpu);
  reserve.job_spec = FormatJobSpec(request.job);
  reserve.plan_json = "{}";
  reserve.uplink_offer = held.OfferOf(*plan);
  const UplinkTally::Offer offer = UplinkOfferOf(reserve.uplink_offer, *fabric);
  ASSERT_FALSE(offer.empty());
  ASSERT_EQ(offer.size(), reserve.uplink_offer.size()) << "every switch found by its name";

  const auto idle = [](const std::vector<double>& busy) {
    return std::all_of(busy.begin(), busy.end(), [](double b) { return b == 0; });
  };
  EXPECT_TRUE(idle(held.Current(**ledger)));
  absl::StatusOr<ledger::Allocation> a = (*ledger)->Reserve(reserve);
  ASSERT_TRUE(a.ok()) << a.status();
  UplinkTally expected(*fabric);
  expected.Add(offer);
  EXPECT_EQ(held.Current(**ledger), expected.busy());
  EXPECT_EQ(held.Current(**ledger), expected.busy());  // counted once, however often asked
  ASSERT_TRUE((*ledger)->Release(a->id).ok());
  EXPECT_TRUE(idle(held.Current(**ledger)));
}

// Etcd records written before the offer had a field of their own keep it in the plan's
// JSON: it is still counted.
TEST(HeldUplinkLoad, CountsAnOfferStillInsideAnOlderPlansJson) {
  FabricPtr fabric =
      *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2, /*gpus=*/8, /*rails=*/8));
  testing::TempDir dir;
  auto ledger = store::SqliteLedger::Open(dir.File("ledger.db"), fabric, ledger::RealClock());
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  const SwitchId leaf = fabric->blocks()[0].leaves[0];
  store::ReserveRequest reserve;
  for (GpuId g : fabric->hosts()[0].gpus) reserve.gpus.push_back(g);
  reserve.job_spec = "tp=8";
  reserve.plan_json =
      absl::StrCat("{\"uplink_offer\": [{\"switch\": \"", fabric->switches()[leaf].name,
                   "\", \"bytes_per_second\": 1e9}]}");
  ASSERT_TRUE((*ledger)->Reserve(reserve).ok());
  HeldUplinkLoad held(*fabric);
  UplinkTally expected(*fabric);
  expected.Add({{leaf, 1e9}});
  EXPECT_EQ(held.Current(**ledger), expected.busy());
}

}  // namespace
}  // namespace topoplace::sched
