// A reporter's budget: a burst at once, then a steady refill, in reports and in bytes;
// each reporter its own; a refusal names who, the budget and when to retry.
#include "api/server/report_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace topoplace::server {
namespace {

using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

TEST(ReportBudget, ABurstPassesThenOneReportPerRefill) {
  ReportBudget budget({.burst_reports = 3, .per_report = absl::Seconds(10)});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(budget.Charge("h1", 100, kT0).ok()) << i;
  absl::Status over = budget.Charge("h1", 100, kT0 + absl::Seconds(1));
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.message()), HasSubstr("'h1'"));
  EXPECT_THAT(std::string(over.message()), HasSubstr("retry in 9 s"));
  EXPECT_TRUE(budget.Charge("h1", 100, kT0 + absl::Seconds(10)).ok());
  EXPECT_FALSE(budget.Charge("h1", 100, kT0 + absl::Seconds(11)).ok());
}

TEST(ReportBudget, BytesAreBudgetedBesideReports) {
  ReportBudget budget({.burst_reports = 100,
                       .per_report = absl::Seconds(1),
                       .burst_bytes = 4 << 20,
                       .bytes_per_hour = 3600.0 * 1024});  // 1 KiB a second
  const size_t mib = 1 << 20;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.Charge("h1", mib, kT0).ok()) << i;
  absl::Status over = budget.Charge("h1", mib, kT0);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.message()), HasSubstr("retry in 1024 s"));
  EXPECT_TRUE(budget.Charge("h1", 1000, kT0 + absl::Seconds(1)).ok()) << "small ones still pass";
}

TEST(ReportBudget, EachReporterHasItsOwnBucketAndARefusalTakesNothing) {
  ReportBudget budget({.burst_reports = 1, .per_report = absl::Seconds(10)});
  EXPECT_TRUE(budget.Charge("h1", 10, kT0).ok());
  EXPECT_TRUE(budget.Charge("h2", 10, kT0).ok());
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(budget.Charge("h1", 10, kT0 + absl::Seconds(i)).ok());
  // The refused attempts did not push the refill back.
  EXPECT_TRUE(budget.Charge("h1", 10, kT0 + absl::Seconds(10)).ok());
}

TEST(ReportBudget, AClockThatStepsBackRefillsNothing) {
  ReportBudget budget({.burst_reports = 1, .per_report = absl::Seconds(10)});
  EXPECT_TRUE(budget.Charge("h1", 10, kT0).ok());
  EXPECT_FALSE(budget.Charge("h1", 10, kT0 - absl::Hours(1)).ok());
  EXPECT_TRUE(budget.Charge("h1", 10, kT0 + absl::Seconds(10)).ok());
}

}  // namespace
}  // namespace topoplace::server
