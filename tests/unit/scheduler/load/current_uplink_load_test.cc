// The uplink load placement steers by: each switch takes the largest share any configured
// source gives, a source that is not configured or knows nothing changes nothing, and the
// ledger's own load joins the others.
#include "scheduler/load/current_uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/job/job_spec.h"
#include "scheduler/ledger/clock.h"
#include "scheduler/placement/engine.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CurrentUplinkLoad, WithoutSourcesNothingIsKnown) {
  EXPECT_THAT(CurrentUplinkLoad({}, absl::Now(), nullptr), IsEmpty());
}

TEST(CurrentUplinkLoad, EachSwitchTakesTheLargestShareAnySourceGives) {
  UplinkLoadSources sources;
  sources.file = [] { return std::vector<double>{0.5, 0.1, 0.0}; };
  absl::Time asked;
  sources.measured = [&asked](absl::Time now) {
    asked = now;
    return std::vector<double>{0.2, 0.4, 0.0};
  };
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  EXPECT_THAT(CurrentUplinkLoad(sources, now, nullptr), ElementsAre(0.5, 0.4, 0.0));
  EXPECT_EQ(asked, now) << "the measured rates are asked as of the time given";
}

TEST(CurrentUplinkLoad, ASourceThatKnowsNothingYetChangesNothing) {
  UplinkLoadSources sources;
  sources.file = [] { return std::vector<double>{}; };
  sources.measured = [](absl::Time) { return std::vector<double>{0.3, 0.0}; };
  EXPECT_THAT(CurrentUplinkLoad(sources, absl::Now(), nullptr), ElementsAre(0.3, 0.0));
}

TEST(CurrentUplinkLoad, TheLedgersOwnLoadJoinsTheFile) {
  FabricPtr fabric =
      *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/2, /*gpus=*/8, /*rails=*/8));
  testing::TempDir dir;
  auto ledger = ledger::SqliteLedger::Open(dir.File("ledger.db"), fabric, ledger::RealClock());
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  PlacementRequest request;
  request.job = *ParseJobSpec("tp=8,pp=2,dp=2,model=7b");  // both blocks: bytes go up
  request.link_loads = true;
  absl::StatusOr<PlacementPlan> plan = PlacementEngine(fabric).Place(request, Occupancy(*fabric));
  ASSERT_TRUE(plan.ok()) << plan.status();
  HeldUplinkLoad held(*fabric);
  ledger::ReserveRequest reserve;
  for (const RankSlot& slot : plan->ranks) reserve.gpus.push_back(slot.gpu);
  reserve.uplink_offer = held.OfferOf(*plan);
  ASSERT_TRUE((*ledger)->Reserve(reserve).ok());
  const std::vector<double> from_ledger = held.Current(**ledger);

  // The file says switch 0 is busier than the ledger's jobs make it; elsewhere the
  // ledger's share stands.
  std::vector<double> file(fabric->switches().size(), 0.0);
  file[0] = 0.9;
  UplinkLoadSources sources;
  sources.file = [&file] { return file; };
  sources.held = &held;
  const std::vector<double> shares = CurrentUplinkLoad(sources, absl::Now(), ledger->get());
  ASSERT_EQ(from_ledger.size(), file.size());
  ASSERT_EQ(shares.size(), file.size());
  for (size_t s = 0; s < shares.size(); ++s) {
    EXPECT_EQ(shares[s], std::max(file[s], from_ledger[s])) << "switch " << s;
  }
  EXPECT_GT(*std::max_element(from_ledger.begin() + 1, from_ledger.end()), 0.0)
      << "the job's plan loads some uplink the file leaves idle";
}

}  // namespace
}  // namespace topoplace::sched
