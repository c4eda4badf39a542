// What the use-case tests (Reserve and the dry runs) stand on: a 2-block fabric of 4 hosts
// of 8 GPUs each, the real engine, a real SQLite ledger, and ports over them whose
// `place` counts the placements and keeps the last request it was handed.
#ifndef TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_
#define TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "scheduler/ledger/clock.h"
#include "scheduler/reserve/reserver.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace::sched {

class UseCaseTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = *GenerateClos(testing::TinyClos(/*blocks=*/2, /*nodes=*/4, /*gpus=*/8, /*rails=*/8));
    engine_ = std::make_shared<const PlacementEngine>(fabric_);
    auto ledger = ledger::SqliteLedger::Open(dir_.File("ledger.db"), fabric_, ledger::RealClock());
    ASSERT_TRUE(ledger.ok()) << ledger.status();
    ledger_ = *std::move(ledger);
  }

  ReserverPorts Ports() {
    ReserverPorts ports;
    ports.ledger = ledger_.get();
    ports.fabric = fabric_.get();
    ports.fabric_version = 3;
    ports.place = [this](const PlacementRequest& request, const Occupancy& occupancy) {
      ++placements_;
      last_request_ = request;
      return engine_->Place(request, occupancy);
    };
    ports.engine = [this] { return engine_; };
    return ports;
  }

  FabricPtr fabric_;
  std::shared_ptr<const PlacementEngine> engine_;
  testing::TempDir dir_;
  std::unique_ptr<ledger::SqliteLedger> ledger_;
  std::atomic<int> placements_{0};
  PlacementRequest last_request_;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_TESTS_UNIT_SCHEDULER_RESERVE_USE_CASE_TEST_BASE_H_
