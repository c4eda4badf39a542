// The uplink load placement steers by: each switch takes the largest share any configured
// source gives, a source that is not configured or knows nothing changes nothing, and the
// ledger's own load joins the others.
#include "scheduler/load/current_uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/ledger/clock.h"
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
  auto ledger = store::SqliteLedger::Open(dir.File("ledger.db"), fabric, ledger::RealClock());
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  // One allocation whose stored offer loads the uplinks of block 0's first leaf.
  HeldUplinkLoad held(*fabric);
  store::ReserveRequest reserve;
  reserve.gpus = {*fabric->FindGpu(fabric->hosts()[0].name, 0)};
  const SwitchId leaf = fabric->blocks()[0].leaves[0];
  reserve.uplink_offer = {{fabric->switches()[leaf].name, 50e9}};
  ASSERT_TRUE((*ledger)->Reserve(reserve).ok());
  const std::vector<double> from_ledger = held.Current(**ledger);

  // The file says another switch is busy; on the leaf the ledger's share stands.
  std::vector<double> file(fabric->switches().size(), 0.0);
  const SwitchId other = leaf == 0 ? 1 : 0;
  file[other] = 0.9;
  UplinkLoadSources sources;
  sources.file = [&file] { return file; };
  sources.held = &held;
  const std::vector<double> shares = CurrentUplinkLoad(sources, absl::Now(), ledger->get());
  ASSERT_EQ(from_ledger.size(), file.size());
  ASSERT_EQ(shares.size(), file.size());
  for (size_t s = 0; s < shares.size(); ++s) {
    EXPECT_EQ(shares[s], std::max(file[s], from_ledger[s])) << "switch " << s;
  }
  EXPECT_GT(from_ledger[leaf], 0.0) << "the stored offer loads the leaf the file leaves idle";
  EXPECT_EQ(shares[leaf], from_ledger[leaf]);
  EXPECT_EQ(shares[other], 0.9);
}

}  // namespace
}  // namespace topoplace::sched
