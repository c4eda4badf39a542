// The uplink load file: shares per switch by name, every mistake named by file and line.
#include "scheduler/state/uplink_load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
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

// Hardening finding 4: a FIFO (or /dev/zero, or a huge file) as the load file used to hang
// Place and Reserve, eat memory and stay stuck after the file was fixed. Only a regular
// file under the size limit is read, and opening never blocks.
TEST_F(UplinkLoadFileTest, AFifoADeviceOrAnOversizedFileIsRefusedWithoutBlocking) {
  char dir_template[] = "/tmp/uplink-load-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::vector<double>> from_fifo = LoadUplinkLoadFile(*fabric_, fifo);
  EXPECT_EQ(from_fifo.status().code(), absl::StatusCode::kInvalidArgument) << from_fifo.status();
  EXPECT_THAT(std::string(from_fifo.status().message()), HasSubstr("not a regular file"));
  absl::StatusOr<std::vector<double>> from_zero = LoadUplinkLoadFile(*fabric_, "/dev/zero");
  EXPECT_THAT(std::string(from_zero.status().message()), HasSubstr("not a regular file"));
  const std::string big = dir + "/big";
  {
    FILE* f = fopen(big.c_str(), "w");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(ftruncate(fileno(f), kMaxUplinkLoadFileBytes + 1), 0);  // sparse
    fclose(f);
  }
  absl::StatusOr<std::vector<double>> from_big = LoadUplinkLoadFile(*fabric_, big);
  EXPECT_THAT(std::string(from_big.status().message()), HasSubstr("more than the"));
  // A fixed file reads again.
  const std::string good = dir + "/good";
  {
    FILE* f = fopen(good.c_str(), "w");
    fprintf(f, "%s 0.25\n", Name(leaf_).c_str());
    fclose(f);
  }
  absl::StatusOr<std::vector<double>> fixed = LoadUplinkLoadFile(*fabric_, good);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_DOUBLE_EQ((*fixed)[leaf_], 0.25);
  unlink(fifo.c_str());
  unlink(big.c_str());
  unlink(good.c_str());
  rmdir(dir.c_str());
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
