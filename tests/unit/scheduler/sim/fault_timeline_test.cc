// When faults change the run: a host failure begins and is known at once by every
// policy; a spine link's degradation is known detect_s late (recover_s after its end) by a
// policy that watches links, and never by one that does not.
#include "scheduler/sim/fault_timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::ElementsAre;

// The first link between two switches (a leaf's uplink).
LinkId SwitchLink(const Fabric& fabric) {
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    if (link.a.kind == Endpoint::Kind::kSwitch && link.b.kind == Endpoint::Kind::kSwitch) return l;
  }
  return -1;
}

std::vector<std::pair<double, FaultStepKind>> Steps(const std::vector<FaultStep>& steps) {
  std::vector<std::pair<double, FaultStepKind>> out;
  for (const FaultStep& s : steps) out.emplace_back(s.time_s, s.kind);
  return out;
}

TEST(FaultTimeline, HostFailuresAreKnownAtOnceAndLinkFaultsOnlyToWatchersAfterTheDelay) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const LinkId uplink = SwitchLink(**fabric);
  ASSERT_GE(uplink, 0);
  FaultSchedule schedule;
  schedule.events.push_back({.time_s = 100,
                             .element = {.type = FaultElement::Type::kLink, .id = uplink},
                             .kind = FaultKind::kDegrade,
                             .duration_s = 50,
                             .capacity = 0.5});
  schedule.events.push_back({.time_s = 200,
                             .element = {.type = FaultElement::Type::kHost, .id = 0},
                             .kind = FaultKind::kFail,
                             .duration_s = 1000});
  const FaultState state(**fabric);
  using K = FaultStepKind;
  EXPECT_THAT(Steps(FaultTimeline(schedule, state, /*watches_links=*/true, 20, 30)),
              ElementsAre(std::pair(100.0, K::kBegin), std::pair(120.0, K::kKnownBegin),
                          std::pair(150.0, K::kEnd), std::pair(180.0, K::kKnownEnd),
                          std::pair(200.0, K::kBegin), std::pair(200.0, K::kKnownBegin),
                          std::pair(1200.0, K::kEnd), std::pair(1200.0, K::kKnownEnd)));
  EXPECT_THAT(Steps(FaultTimeline(schedule, state, /*watches_links=*/false, 20, 30)),
              ElementsAre(std::pair(100.0, K::kBegin), std::pair(150.0, K::kEnd),
                          std::pair(200.0, K::kBegin), std::pair(200.0, K::kKnownBegin),
                          std::pair(1200.0, K::kEnd), std::pair(1200.0, K::kKnownEnd)));
}

}  // namespace
}  // namespace topoplace::sched::sim
