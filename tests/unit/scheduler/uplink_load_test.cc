// The uplink load file: shares per switch by name, every mistake named by file and line.
#include "scheduler/state/uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

class UplinkLoadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> f = sim::TinySharedUplinkFabric();
    ASSERT_TRUE(f.ok()) << f.status();
    fabric_ = *f;
    leaf_ = fabric_->blocks()[1].leaves[0];
    spine_ = -1;
    for (SwitchId s = 0; s < static_cast<SwitchId>(fabric_->switches().size()); ++s) {
      if (fabric_->switches()[s].tier == 2) spine_ = s;
    }
    ASSERT_GE(spine_, 0);
  }
  std::string Name(SwitchId s) const { return fabric_->switches()[s].name; }
  FabricPtr fabric_;
  SwitchId leaf_ = -1, spine_ = -1;
};

TEST_F(UplinkLoadFileTest, ReadsSharesByNameAndLeavesTheRestIdle) {
  absl::StatusOr<std::vector<double>> busy = ParseUplinkLoad(
      *fabric_,
      "# measured at 12:00\n" + Name(leaf_) + "  0.35\n\n" + Name(spine_) + "\t1.5 # over\n",
      "load.txt");
  ASSERT_TRUE(busy.ok()) << busy.status();
  ASSERT_EQ(busy->size(), fabric_->switches().size());
  for (SwitchId s = 0; s < static_cast<SwitchId>(busy->size()); ++s) {
    const double expected = s == leaf_ ? 0.35 : s == spine_ ? 1.5 : 0.0;
    EXPECT_DOUBLE_EQ((*busy)[s], expected) << Name(s);
  }
}

TEST_F(UplinkLoadFileTest, BadLinesAreInvalidArgumentNamingFileLineAndWhatWasExpected) {
  const std::string leaf = Name(leaf_);
  const struct {
    std::string text, message;
  } cases[] = {
      {"nope 0.5\n", "load.txt:1: unknown switch 'nope'"},
      {"\n" + leaf + "\n", "load.txt:2: expected 'SWITCH SHARE'"},
      {leaf + " 0.5 extra\n", "load.txt:1: expected 'SWITCH SHARE'"},
      {leaf + " half\n", "expected a number in [0, 100]"},
      {leaf + " -0.1\n", "got '-0.1'"},
      {leaf + " nan\n", "got 'nan'"},
      {leaf + " 350\n", "got '350'"},
      {leaf + " 0.1\n" + leaf + " 0.2\n",
       "load.txt:2: switch '" + leaf + "' is already given on line 1"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<double>> busy = ParseUplinkLoad(*fabric_, c.text, "load.txt");
    ASSERT_FALSE(busy.ok()) << c.text;
    EXPECT_EQ(busy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(busy.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST_F(UplinkLoadFileTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadUplinkLoadFile(*fabric_, "/nonexistent/load.txt").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(KeepLargerShares, TakesTheLargerShareOfEachSwitchNeverTheSum) {
  std::vector<double> measured = {0.5, 0.1, 0.0};
  sched::KeepLargerShares(measured, {0.2, 0.3, 0.0});
  EXPECT_EQ(measured, (std::vector<double>{0.5, 0.3, 0.0}));
  std::vector<double> none;
  sched::KeepLargerShares(none, {0.2, 0.3});
  EXPECT_EQ(none, (std::vector<double>{0.2, 0.3}));
}

}  // namespace
}  // namespace topoplace::sched
