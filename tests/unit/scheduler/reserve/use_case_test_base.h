// What the use-case tests (Reserve and the dry runs) stand on: a 2-block fabric of 4 hosts
// of 8 GPUs each, the real engine, a real SQLite ledger, and a placement port over them
// that counts the placements, keeps the last request it was handed, and gives the uplink
// load, exclusions and after-placement hook a test sets.
#ifndef TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_
#define TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "scheduler/ledger/clock.h"
#include "scheduler/reserve/reserver.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {

class TestPlacementPort final : public PlacementPort {
 public:
  std::shared_ptr<const PlacementEngine> Engine() const override { return engine; }
  absl::StatusOr<PlacementPlan> Place(const PlacementRequest& request,
                                      const Occupancy& occupancy) const override {
    ++placements;
    last_request = request;
    absl::StatusOr<PlacementPlan> plan = engine->Place(request, occupancy);
    if (after_place) after_place(plan);
    return plan;
  }
  std::vector<double> UplinkLoad() const override { return uplink_busy; }
  absl::Status ExcludeFailed(JobSpec& job) const override {
    return exclude_failed ? exclude_failed(job) : absl::OkStatus();
  }

  std::shared_ptr<const PlacementEngine> engine;
  std::vector<double> uplink_busy;
  std::function<absl::Status(JobSpec&)> exclude_failed;
  std::function<void(const absl::StatusOr<PlacementPlan>&)> after_place;
  mutable std::atomic<int> placements{0};
  mutable PlacementRequest last_request;
};

class UseCaseTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/4, /*gpus=*/8, /*rails=*/8));
    engine_ = std::make_shared<const PlacementEngine>(fabric_);
    auto ledger = store::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, ledger::RealClock());
    ASSERT_TRUE(ledger.ok()) << ledger.status();
    ledger_ = *std::move(ledger);
  }

  ReserverPorts Ports() {
    port_.engine = engine_;
    return {
        .ledger = ledger_.get(), .fabric = fabric_.get(), .fabric_version = 3, .placement = &port_};
  }

  FabricPtr fabric_;
  std::shared_ptr<const PlacementEngine> engine_;
  testing::TempDir dir_;
  std::unique_ptr<store::SqliteLedger> ledger_;
  TestPlacementPort port_;
  const std::atomic<int>& placements_ = port_.placements;
  const PlacementRequest& last_request_ = port_.last_request;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_
