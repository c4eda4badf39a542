#include "telemetry/counters/sysfs_counters.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace topoplace::telemetry {
namespace {

const std::string kRoot = std::string(TOPOPLACE_TELEMETRY_TESTDATA) + "/sysfs";

TEST(SysfsCountersTest, ReadsRecordedInfinibandPort) {
  absl::StatusOr<PortCounterSet> set = ReadInfinibandPort(kRoot, "mlx5_0", 1);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->values.at("port_xmit_data"), 4294967295u);
  PortTotals t = Summarise(*set);
  EXPECT_EQ(t.rx_errors, 7u);  // symbol_error 3 + port_rcv_errors 4
  EXPECT_EQ(t.tx_discards, 7u);
  EXPECT_EQ(t.ecn_marked, 120u);
  EXPECT_EQ(t.cnp_sent, 60u);
  EXPECT_EQ(t.link_downs, 1u);
}

TEST(SysfsCountersTest, ReadsRecordedNetDevice) {
  absl::StatusOr<PortCounterSet> set = ReadNetDevice(kRoot, "eth0");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->values.at("rx_bytes"), 18446744073709551615u);  // 2^64 - 1 parses
  PortTotals t = Summarise(*set);
  EXPECT_EQ(t.rx_errors, 5u);
  EXPECT_EQ(t.tx_discards, 9u);
  EXPECT_EQ(t.link_downs, 2u);
}

TEST(SysfsCountersTest, MissingPortIsNotFound) {
  absl::StatusOr<PortCounterSet> set = ReadInfinibandPort(kRoot, "mlx5_9", 1);
  EXPECT_EQ(set.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(set.status().message()), ::testing::HasSubstr("mlx5_9"));
}

class GarbageCounterTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GarbageCounterTest, RejectedNamingTheFile) {
  namespace fs = std::filesystem;
  // ctest runs every parameter as its own process, in parallel: one tree per process.
  const fs::path root =
      fs::path(::testing::TempDir()) / ("garbage-sysfs-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path dir = root / "sys/class/net/eth9/statistics";
  fs::create_directories(dir);
  std::ofstream(dir / "rx_packets") << "12\n";
  std::ofstream(dir / "rx_errors") << GetParam();
  absl::StatusOr<PortCounterSet> set = ReadNetDevice(root.string(), "eth9");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(set.status().message()), ::testing::HasSubstr("statistics/rx_errors"));
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Garbage, GarbageCounterTest,
                         ::testing::Values("", "\n", "-5\n", "12abc\n", "0x10\n", "1.5\n",
                                           "18446744073709551616\n",  // 2^64: overflow
                                           "N/A (not supported)\n", std::string("7\0", 2),
                                           std::string(100, '9')));

TEST(ParseCounterTextTest, AcceptsTrailingWhitespace) {
  EXPECT_EQ(*ParseCounterText("f", "42 \n"), 42u);
  EXPECT_EQ(*ParseCounterText("f", "0"), 0u);
}

}  // namespace
}  // namespace topoplace::telemetry
