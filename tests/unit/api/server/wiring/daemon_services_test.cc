// The daemon's services part over real SQLite stores: link health comes back from the
// stores before any call is served and placement sees it, only the uplink-load sources the
// configuration names are built, every ledger change a handler makes reaches the
// console's change feed, and the metrics read the free capacity and count refusals.
#include "api/server/wiring/daemon_services.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "scheduler/ledger/clock.h"
#include "telemetry/health/fabric_health_model.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::server {
namespace {

class DaemonServicesTest : public ::testing::Test {
 protected:
  DaemonServicesTest() {
    config_.db_path = dir_.File("topoplaced.db");
    fabric_ = *GenerateClos(::topoplace::testing::TinyClos(/*blocks=*/2, /*nodes=*/2));
  }

  DaemonStores OpenStores() {
    absl::StatusOr<DaemonStores> stores = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
    EXPECT_TRUE(stores.ok()) << stores.status();
    return *std::move(stores);
  }

  testing::TempDir dir_;
  ServerConfig config_;
  FabricPtr fabric_;
};

// Hosts and leaves the current engine avoids or scores down because of link health.
int UnhealthyPlaces(const sched::PlacementEngine& engine, const Fabric& fabric) {
  int count = engine.health().unusable_hosts();
  for (int32_t block = 0; block < static_cast<int32_t>(fabric.blocks().size()); ++block) {
    count += engine.health().block_bad_uplinks(block);
  }
  return count;
}

TEST_F(DaemonServicesTest, LinkHealthInTheStoresIsRestoredAndPlacementSeesIt) {
  DaemonStores stores = OpenStores();
  const std::string link = telemetry::LinkName(*fabric_, 0);
  ASSERT_TRUE(stores.health_history()
                  .AddHealthEvents({{link, "healthy", "down", "probes failed", 1}})
                  .ok());

  absl::StatusOr<std::unique_ptr<DaemonServices>> services =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(services.ok()) << services.status();
  EXPECT_EQ((*services)->health->Link(0).verdict, telemetry::LinkVerdict::kDown);
  EXPECT_EQ((*services)->context.health, (*services)->health.get());
  EXPECT_GT(UnhealthyPlaces(*(*services)->context.engine->Current(), *fabric_), 0)
      << "the engine the services place with was built with the restored health";
}

TEST_F(DaemonServicesTest, WithoutStoredHealthTheEngineSeesEveryLinkHealthy) {
  DaemonStores stores = OpenStores();
  absl::StatusOr<std::unique_ptr<DaemonServices>> services =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(services.ok()) << services.status();
  EXPECT_EQ(UnhealthyPlaces(*(*services)->context.engine->Current(), *fabric_), 0);
}

TEST_F(DaemonServicesTest, OnlyTheUplinkLoadSourcesTheConfigurationNamesAreBuilt) {
  DaemonStores stores = OpenStores();
  config_.uplink_load_from_allocations = true;
  config_.uplink_load_from_counters = false;
  absl::StatusOr<std::unique_ptr<DaemonServices>> held =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_NE((*held)->context.live_load, nullptr);
  EXPECT_EQ((*held)->context.measured_load, nullptr);
  EXPECT_EQ((*held)->context.uplink_load, nullptr);

  config_.uplink_load_from_allocations = false;
  config_.uplink_load_from_counters = true;
  config_.uplink_load_file = dir_.File("uplink-load.txt");
  absl::StatusOr<std::unique_ptr<DaemonServices>> measured =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ((*measured)->context.live_load, nullptr);
  EXPECT_NE((*measured)->context.measured_load, nullptr);
  EXPECT_NE((*measured)->context.uplink_load, nullptr);
}

TEST_F(DaemonServicesTest, ALedgerChangeMadeThroughTheServicesReachesTheChangeFeed) {
  DaemonStores stores = OpenStores();
  absl::StatusOr<std::unique_ptr<DaemonServices>> services =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(services.ok()) << services.status();
  ChangeFeed& feed = (*services)->changes;
  ASSERT_EQ(feed.last(), 0u);

  std::optional<GpuId> gpu = fabric_->FindGpu(fabric_->hosts()[0].name, 0);
  ASSERT_TRUE(gpu.has_value());
  store::ReserveRequest request;
  request.gpus = {*gpu};
  absl::StatusOr<ledger::Allocation> held = (*services)->context.ledger->Reserve(request);
  ASSERT_TRUE(held.ok()) << held.status();

  std::vector<ChangeFeed::Change> changes = feed.WaitAfter(0, absl::ZeroDuration());
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].topic, ChangeFeed::kAllocations);
  EXPECT_EQ(stores.ledger().Get(held->id)->id, held->id) << "written to the stores' ledger";
}

TEST_F(DaemonServicesTest, TheMetricsReadTheFreeCapacityOfTheLedgerAndCountRefusals) {
  DaemonStores stores = OpenStores();
  absl::StatusOr<std::unique_ptr<DaemonServices>> services =
      BuildDaemonServices(config_, stores, Authorizer());
  ASSERT_TRUE(services.ok()) << services.status();
  const telemetry::DaemonMetrics& metrics = *(*services)->metrics;
  const std::string all = absl::StrCat(fabric_->gpus().size());
  EXPECT_THAT(metrics.Render(),
              ::testing::HasSubstr("topoplace_free_gpus{level=\"cluster\",domain=\"cluster\"} " +
                                   all + "\n"));

  std::optional<GpuId> gpu = fabric_->FindGpu(fabric_->hosts()[0].name, 0);
  ASSERT_TRUE(gpu.has_value());
  store::ReserveRequest request;
  request.gpus = {*gpu};
  ASSERT_TRUE((*services)->context.ledger->Reserve(request).ok());
  ASSERT_TRUE((*services)->context.on_refused);
  (*services)->context.on_refused("block");

  const std::string text = metrics.Render();
  EXPECT_THAT(text,
              ::testing::HasSubstr("topoplace_free_gpus{level=\"cluster\",domain=\"cluster\"} " +
                                   absl::StrCat(fabric_->gpus().size() - 1) + "\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("topoplace_refused_requests_total{level=\"block\"} 1"));
}

}  // namespace
}  // namespace topoplace::server
