// The daemon's stores on real files: what `store = sqlite` opens, that one db_path serves
// one daemon, and that a reopened database keeps its fabric snapshot's version.
#include "api/server/wiring/daemon_stores.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/ledger/clock.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

class DaemonStoresTest : public ::testing::Test {
 protected:
  DaemonStoresTest() {
    config_.db_path = dir_.File("state/topoplaced.db");  // a directory made on open
    fabric_ = *GenerateClos(::topoplace::testing::TinyClos(/*blocks=*/1, /*nodes=*/2));
  }

  testing::TempDir dir_;
  ServerConfig config_;
  FabricPtr fabric_;
};

TEST_F(DaemonStoresTest, SqliteKeepsEverythingInTheFileAndLinkHealthInTheTelemetryStore) {
  absl::StatusOr<DaemonStores> stores = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
  ASSERT_TRUE(stores.ok()) << stores.status();
  EXPECT_NE(stores->host_reports, nullptr);
  EXPECT_EQ(stores->shared_health, nullptr) << "nothing shared without etcd";
  EXPECT_EQ(&stores->health_history(), stores->telemetry.get());
  EXPECT_EQ(stores->backend.election, nullptr);
  EXPECT_TRUE(stores->ledger().MayWrite().ok());
  EXPECT_EQ(stores->fabric->hosts().size(), fabric_->hosts().size());
}

TEST_F(DaemonStoresTest, ASecondDaemonOnTheSameDbPathIsRefusedNamingIt) {
  absl::StatusOr<DaemonStores> first = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<DaemonStores> second = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("db_path"));
}

TEST_F(DaemonStoresTest, ReopeningWithTheSameFabricKeepsItsSnapshotVersion) {
  uint64_t version = 0;
  {
    absl::StatusOr<DaemonStores> stores = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
    ASSERT_TRUE(stores.ok()) << stores.status();
    version = stores->fabric_version;
  }
  absl::StatusOr<DaemonStores> again = OpenDaemonStores(config_, ledger::RealClock(), fabric_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->fabric_version, version);
}

}  // namespace
}  // namespace topoplace::server
