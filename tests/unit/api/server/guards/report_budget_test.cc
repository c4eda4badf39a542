// A reporter's budget: a burst at once, then a steady refill, in reports and in bytes;
// each reporter its own; a refusal names who, the budget and when to retry.
#include "api/server/guards/report_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "telemetry/probe/probe_plan.h"
#include "topoplace/v1/telemetry.pb.h"

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

// The agent's largest round: the most probes a round may hold, every one measured, and one
// NIC's counters per rail of an 8-rail host, with names as long as rail-28k's.
std::pair<size_t, size_t> LargestRoundBytes() {
  v1::ReportProbeResultsRequest probes;
  probes.set_reporter("b07-n031");
  for (int i = 0; i < 1024; ++i) {  // ValidatePlanOptions's cap on max_probes_per_round
    v1::ProbeResult* r = probes.add_results();
    r->set_source("b07-n031/mlx5_7");
    r->set_target("b12-n017/mlx5_7");
    r->set_reachable(true);
    r->set_transport("rdma");
    r->set_measured_unix_ms(1'700'000'000'000);
    r->set_latency_us(3.25);
    r->set_bandwidth_gbps(391.5);
  }
  v1::ReportPortCountersRequest counters;
  counters.set_reporter("b07-n031");
  for (int n = 0; n < 8; ++n) {
    v1::PortCounters* c = counters.add_counters();
    c->set_endpoint("b07-n031/mlx5_" + std::to_string(n));
    c->set_rx_errors(1'000'000'000);
    c->set_tx_discards(1'000'000'000);
    c->set_ecn_marked(1'000'000'000);
    c->set_cnp_sent(1'000'000'000);
    c->set_link_downs(1'000);
    c->set_measured_unix_ms(1'700'000'000'000);
  }
  return {probes.ByteSizeLong(), counters.ByteSizeLong()};
}

// The budget and the agent's shortest interval are set apart (api/server and telemetry);
// this ties them: an honest agent probing as often as it may, with its largest rounds, is
// never refused over a day. The budget's first form (one report a second) refused every
// other report from the 31st second on.
TEST(ReportBudget, AnAgentAtItsShortestIntervalNeverMeetsTheTelemetryBudget) {
  const auto [probe_bytes, counter_bytes] = LargestRoundBytes();
  ReportBudget budget(kTelemetryBudget);
  absl::Time t = kT0;
  for (int round = 0; round < 24 * 3600; ++round, t += telemetry::kMinProbeInterval) {
    ASSERT_TRUE(budget.Charge("b07-n031", probe_bytes, t).ok()) << "round " << round;
    ASSERT_TRUE(budget.Charge("b07-n031", counter_bytes, t).ok()) << "round " << round;
  }
  // A looping agent sending rounds twice as often is cut off once its burst is spent.
  ReportBudget looping(kTelemetryBudget);
  absl::Status refused;
  for (int round = 0; round < 1000 && refused.ok(); ++round) {
    const absl::Time at = kT0 + round * telemetry::kMinProbeInterval / 2;
    refused = looping.Charge("b07-n031", probe_bytes, at);
    if (refused.ok()) refused = looping.Charge("b07-n031", counter_bytes, at);
  }
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace topoplace::server
