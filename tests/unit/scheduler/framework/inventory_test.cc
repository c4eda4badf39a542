// Inventory::TakeFromUntouchedBlock (scheduler/framework/inventory.h) against TakeHosts
// with every `taken` flag clear: the same hosts in the same order, whichever order is
// asked, with degraded hosts or none, for counts below, at and above what a block holds.
#include "scheduler/framework/inventory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/state/health.h"
#include "scheduler/state/occupancy.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::sched {
namespace {

// Degrades the cables of about one NIC in `share`, seeded.
FabricHealth SomeDegradedCables(const Fabric& fabric, double share, uint32_t seed) {
  std::mt19937 random(seed);
  std::bernoulli_distribution pick(share);
  FabricHealth health;
  for (NicId n = 0; n < static_cast<NicId>(fabric.nics().size()); ++n) {
    if (!pick(random)) continue;
    for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
      const Link& link = fabric.links()[l];
      if (link.a == NicEnd(n) || link.b == NicEnd(n)) health.degraded_links.insert(l);
    }
  }
  return health;
}

TEST(Inventory, TakingFromAnUntouchedBlockTakesWhatTakeHostsTakesWithNoFlagsSet) {
  const FabricPtr fabric = *GeneratePreset("superpod-4su");
  const JobSpec job = *ParseJobSpec("tp=8,pp=1,dp=2");
  int degraded_seen = 0;
  for (const double degraded_share : {0.0, 0.05, 0.3}) {
    const HealthView health(*fabric, SomeDegradedCables(*fabric, degraded_share, 5));
    for (uint32_t seed = 0; seed < 4; ++seed) {
      const Occupancy occupancy = RandomBackgroundLoad(*fabric, 0.5, 100 + seed);
      const Inventory inv = *Inventory::Build(*fabric, occupancy, health, job);
      for (HostId h = 0; h < static_cast<HostId>(fabric->hosts().size()); ++h) {
        degraded_seen += health.host_degraded(h) && inv.eligible(h) ? 1 : 0;
      }
      for (int32_t block = 0; block < static_cast<int32_t>(fabric->blocks().size()); ++block) {
        for (const Inventory::Take order :
             {Inventory::Take::kHostOrder, Inventory::Take::kHealthyFirst}) {
          for (int count : {0, 1, inv.block_free(block) / 2, inv.block_free(block),
                            inv.block_free(block) + 3, std::numeric_limits<int>::max()}) {
            SCOPED_TRACE(absl::StrCat("degraded ", degraded_share, ", seed ", seed, ", block ",
                                      block, ", count ", count, ", healthy first ",
                                      order == Inventory::Take::kHealthyFirst));
            std::vector<uint8_t> taken(fabric->hosts().size(), 0);
            std::vector<HostId> flagged = {-7}, untouched = {-7};  // appended after -7
            const int got_flagged = inv.TakeHosts(block, count, taken, flagged, order);
            const int got_untouched = inv.TakeFromUntouchedBlock(block, count, untouched, order);
            EXPECT_EQ(got_untouched, got_flagged);
            EXPECT_EQ(untouched, flagged);
          }
        }
      }
    }
  }
  EXPECT_GT(degraded_seen, 0) << "no eligible degraded host: the healthy-first order is untried";
}

}  // namespace
}  // namespace topoplace::sched
