// The report: Markdown tables carry every policy's numbers; SVG charts are well-formed.
#include "scheduler/sim/report_writer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/sim/svg_plot.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::HasSubstr;

TEST(ReportWriter, TablesListEveryPolicy) {
  PolicyMetrics a;
  a.policy = "topoplace";
  a.total_spine_bytes = 4e13;
  PolicyMetrics b;
  b.policy = "first-fit";
  RunInfo info;
  info.fabric = "rail-28k";
  info.fabric_gpus = 28672;
  info.trace = "t.csv";
  info.jobs = 5;
  const std::string md = RenderReportMarkdown(info, {a, b}, "topoplace simulate ...");
  EXPECT_THAT(md, HasSubstr("# t.csv on rail-28k"));
  EXPECT_THAT(md, HasSubstr("| topoplace | 40.00 TB"));
  EXPECT_THAT(md, HasSubstr("| first-fit |"));
  EXPECT_THAT(md, HasSubstr("![JCT CDF](jct_cdf.svg)"));
}

TEST(ReportWriter, WritesMarkdownAndFourCharts) {
  const std::string dir = ::testing::TempDir() + "/sim-report";
  SimResult r;
  r.policy = "topoplace";
  r.total_gpus = 8;
  r.busy_steps = {{0, 8}, {10, 0}};
  JobRecord job;
  job.gpus = 8;
  job.start_s = 0;
  job.end_s = 10;
  r.jobs = {job};
  ASSERT_TRUE(WriteReport(dir, RunInfo{}, {r}, {Summarize(r)}, "cmd").ok());
  for (const char* name :
       {"report.md", "queue_cdf.svg", "jct_cdf.svg", "spine_bytes.svg", "utilisation.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  std::ifstream in(dir + "/jct_cdf.svg");
  std::stringstream svg;
  svg << in.rdbuf();
  EXPECT_THAT(svg.str(), HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg.str(), HasSubstr("</svg>"));
}

TEST(SvgPlot, EscapesTextAndDrawsOnePathPerSeries) {
  LineChart c;
  c.title = "a < b & c";
  c.series.push_back({"one", {{0, 0}, {1, 1}}});
  c.series.push_back({"two", {{0, 1}, {1, 0}}});
  const std::string svg = RenderLineChart(c);
  EXPECT_THAT(svg, HasSubstr("a &lt; b &amp; c"));
  size_t paths = 0;
  for (size_t at = svg.find("<path"); at != std::string::npos; at = svg.find("<path", at + 1)) {
    ++paths;
  }
  EXPECT_EQ(paths, 2u);
}

}  // namespace
}  // namespace topoplace::sched::sim
