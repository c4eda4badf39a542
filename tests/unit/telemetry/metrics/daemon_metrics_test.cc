#include "telemetry/metrics/daemon_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "tests/testing/run_command.h"

namespace topoplace::telemetry {
namespace {

using ::testing::HasSubstr;

void Fill(DaemonMetrics& m) {
  m.ObserveProbe(Tier::kLeaf, 3.5, 380, true);
  m.ObserveProbe(Tier::kSpine, 6.0, 0, true);
  m.ObserveProbe(Tier::kSpine, 0, 0, false);
  m.SetLinkHealth("b00-n000/mlx5_0--leaf-b00-r0", LinkVerdict::kDown);
  m.SetLinkHealth("b00-n001/mlx5_0--leaf-b00-r0", LinkVerdict::kDegraded);
  m.SetLinkHealth("b00-n001/mlx5_0--leaf-b00-r0", LinkVerdict::kHealthy);  // drops it
  m.SetLinkCounts(10, 0, 1);
  m.CountHealthChange(LinkVerdict::kDown);
  m.SetReceiveErrorRate("b00-n000/mlx5_0", 2.5);
  m.CountRejectedReport("probe");
  m.ObservePlacement(absl::Milliseconds(3), true);
  m.CountRpc("/topoplace.v1.Placement/Place", "OK");
  m.SetLedgerSource([] {
    return LedgerGauges{.allocations = {{"committed", 2}},
                        .writable = true,
                        .leading = false,
                        .expired_reservations = 3,
                        .store_bytes = 52'428'800,
                        .store_quota_bytes = 104'857'600};
  });
  m.CountRefused("block");
  m.SetCapacitySource([] {
    sched::FreeCapacity free;
    free.levels.push_back({.level = "nvlink_domain",
                           .domains = {{"rack-0", 40, 9, 36}, {"rack-1", 4, 1, 4}},
                           .largest_hosts = 9,
                           .largest_gpus = 36});
    free.levels.push_back({.level = "cluster",
                           .domains = {{"cluster", 44, 10, 40}},
                           .largest_hosts = 10,
                           .largest_gpus = 40});
    free.idle_hosts_by_run = {{1, 1}, {9, 9}};
    return free;
  });
}

TEST(DaemonMetricsTest, RendersConventionalNames) {
  DaemonMetrics m;
  Fill(m);
  const std::string text = m.Render();
  EXPECT_THAT(text, HasSubstr("topoplace_probe_latency_seconds_bucket{tier=\"leaf\""));
  EXPECT_THAT(text, HasSubstr("topoplace_probe_bandwidth_bytes_per_second_count{tier=\"leaf\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("topoplace_link_health_state{link=\"b00-n000/mlx5_0--leaf-b00-r0\"} 2"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("b00-n001/mlx5_0--leaf")));
  EXPECT_THAT(text, HasSubstr("topoplace_links{health=\"down\"} 1"));
  EXPECT_THAT(text, HasSubstr("topoplace_allocations{state=\"committed\"} 2"));
  EXPECT_THAT(text, HasSubstr("topoplace_ledger_writable 1"));
  EXPECT_THAT(text, HasSubstr("topoplace_leader 0"));
  EXPECT_THAT(text, HasSubstr("# TYPE topoplace_reservations_expired_total counter"));
  EXPECT_THAT(text, HasSubstr("topoplace_reservations_expired_total 3"));
  EXPECT_THAT(text, HasSubstr("topoplace_store_bytes 52428800"));
  EXPECT_THAT(text, HasSubstr("topoplace_store_quota_bytes 104857600"));
  EXPECT_THAT(text, HasSubstr("topoplace_rpc_requests_total{"));
  EXPECT_THAT(text, HasSubstr("topoplace_refused_requests_total{level=\"block\"} 1"));
  EXPECT_THAT(text, HasSubstr("topoplace_free_gpus{level=\"nvlink_domain\",domain=\"rack-0\"} 40"));
  EXPECT_THAT(text, HasSubstr("topoplace_largest_placeable_gpus{level=\"cluster\"} 40"));
  EXPECT_THAT(text, HasSubstr("topoplace_largest_placeable_hosts{level=\"nvlink_domain\"} 9"));
  EXPECT_THAT(text, HasSubstr("topoplace_idle_hosts_by_run{size=\"9\"} 9"));
}

// A store without a quota (SQLite) exports no store series at all, rather than a 0 that
// would read as an empty etcd.
TEST(DaemonMetricsTest, AStoreWithoutAQuotaExportsNoStoreSeries) {
  DaemonMetrics m;
  m.SetLedgerSource([] { return LedgerGauges{.allocations = {}, .writable = true}; });
  EXPECT_THAT(m.Render(), ::testing::Not(HasSubstr("topoplace_store_")));
}

// The alerting rules and the dashboard (deploy/) name only series the daemon exports.
TEST(DaemonMetricsTest, EveryMetricTheAlertsAndTheDashboardUseIsExported) {
  DaemonMetrics m;
  Fill(m);
  const std::string text = m.Render();
  for (const char* file : {"prometheus/topoplace-alerts.yml", "grafana/topoplace-dashboard.json"}) {
    std::ifstream in(std::string(TP_DEPLOY_DIR) + "/" + file);
    ASSERT_TRUE(in) << file;
    const std::string content((std::istreambuf_iterator<char>(in)), {});
    const std::regex metric("topoplace_[a-z_]+");
    int found = 0;
    for (auto it = std::sregex_iterator(content.begin(), content.end(), metric);
         it != std::sregex_iterator(); ++it, ++found) {
      std::string name = it->str();
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        if (absl::EndsWith(name, suffix)) name.resize(name.size() - std::strlen(suffix));
      }
      EXPECT_THAT(text, HasSubstr("# TYPE " + name + " ")) << file << " uses " << it->str();
    }
    EXPECT_GT(found, 5) << file;
  }
}

TEST(DaemonMetricsTest, PassesPromtoolCheckMetrics) {
  if (testing::RunCommand("command -v promtool").exit_code != 0) {
    GTEST_SKIP() << "promtool is not installed (Debian package 'prometheus')";
  }
  DaemonMetrics m;
  Fill(m);
  const std::string path = ::testing::TempDir() + "/topoplace-metrics.txt";
  std::ofstream(path) << m.Render();
  testing::CommandResult r =
      testing::RunCommand("promtool check metrics < " + testing::ShellQuote(path));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out + r.err, "") << "promtool reports lint problems";
}

TEST(DaemonMetricsTest, ServesOverHttp) {
  DaemonMetrics m;
  Fill(m);
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0", m);
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);
  if (testing::RunCommand("command -v curl").exit_code != 0) GTEST_SKIP() << "no curl";
  testing::CommandResult r = testing::RunCommand(
      "curl -sf http://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("topoplace_allocations{state=\"committed\"} 2"));
}

TEST(DaemonMetricsTest, WithAuthAScrapeNeedsAnAcceptedPassword) {
  DaemonMetrics m;
  Fill(m);
  absl::StatusOr<std::unique_ptr<MetricsServer>> server =
      MetricsServer::Start("127.0.0.1:0", m, [](const std::string&, const std::string& password) {
        return password == "scrape-token-0123456789";
      });
  ASSERT_TRUE(server.ok()) << server.status();
  if (testing::RunCommand("command -v curl").exit_code != 0) GTEST_SKIP() << "no curl";
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics";
  auto status_of = [&](const std::string& credentials) {
    return testing::RunCommand("curl -s -o /dev/null -w '%{http_code}' " + credentials + " " + url)
        .out;
  };
  EXPECT_EQ(status_of(""), "401");
  EXPECT_EQ(status_of("-u prometheus:wrong"), "401");
  EXPECT_EQ(status_of("-u prometheus:scrape-token-0123456789"), "200");
}

TEST(DaemonMetricsTest, BadListenAddressIsUnavailable) {
  DaemonMetrics m;
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("256.1.1.1:1", m);
  EXPECT_FALSE(server.ok());
}

}  // namespace
}  // namespace topoplace::telemetry
