// The GPU-count -> PTD-P rule of degree_rule.h, case by case.
#include "scheduler/sim/degree_rule.h"

#include <ostream>
#include <string>

#include "gtest/gtest.h"

namespace topoplace::sched::sim {
namespace {

struct RuleCase {
  int64_t gpus;
  int tp, pp, dp, gpus_per_node;
  const char* model;
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.gpus << " GPUs"; }

class DegreeRuleCase : public ::testing::TestWithParam<RuleCase> {};

TEST_P(DegreeRuleCase, MapsGpuCountToDocumentedDegrees) {
  const RuleCase& c = GetParam();
  absl::StatusOr<JobSpec> job = JobForGpuCount(c.gpus);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->tp, c.tp);
  EXPECT_EQ(job->pp, c.pp);
  EXPECT_EQ(job->dp, c.dp);
  EXPECT_EQ(job->gpus_per_node, c.gpus_per_node);
  EXPECT_EQ(job->model.name, c.model);
  EXPECT_EQ(job->world_size(), c.gpus);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DegreeRuleCase,
    ::testing::Values(RuleCase{1, 1, 1, 1, 1, "7b"},        // one GPU, no traffic
                      RuleCase{6, 2, 1, 3, 6, "7b"},        // largest power of two dividing 6 is 2
                      RuleCase{8, 8, 1, 1, 8, "7b"},        // one full node
                      RuleCase{12, 4, 1, 3, 4, "7b"},       // 4 divides 12, 8 does not: 3 nodes x 4
                      RuleCase{16, 8, 1, 2, 8, "7b"},       // 7b never pipelines
                      RuleCase{24, 8, 1, 3, 8, "70b"},      // r = 3: no power of two > 1 divides it
                      RuleCase{64, 8, 4, 2, 8, "70b"},      // r = 8, pp capped at 4 -> dp 2
                      RuleCase{1024, 8, 8, 16, 8, "175b"},  // r = 128, pp cap 8
                      RuleCase{4096, 8, 16, 32, 8, "405b"}  // r = 512, pp cap 16
                      ),
    [](const ::testing::TestParamInfo<RuleCase>& info) {
      return "Gpus" + std::to_string(info.param.gpus);
    });

// On 4-GPU trays (GB200 NVL72) TP stays inside a tray and the rest is as before.
TEST(DegreeRule, FollowsTheHostsGpuCount) {
  absl::StatusOr<JobSpec> job = JobForGpuCount(64, {.gpus_per_node = 4, .nvlink_domain_gpus = 72});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->gpus_per_node, 4);
  EXPECT_EQ(job->tp, 4);
  EXPECT_EQ(job->pp, 4);
  EXPECT_EQ(job->dp, 4);
  absl::StatusOr<JobSpec> one_gpu_hosts = JobForGpuCount(64, {.gpus_per_node = 1});
  ASSERT_TRUE(one_gpu_hosts.ok()) << one_gpu_hosts.status();
  EXPECT_EQ(one_gpu_hosts->gpus_per_node, 1);
  EXPECT_EQ(one_gpu_hosts->tp, 1);
}

// The MoE rule keeps TP x EP inside one NVLink domain where the fabric has large ones.
TEST(DegreeRule, MoeJobsKeepTheirExpertGroupInsideAnNvlinkDomain) {
  const NodeShape nvl72{.gpus_per_node = 4, .nvlink_domain_gpus = 72};
  absl::StatusOr<JobSpec> small = MoeJobForGpuCount(64, nvl72);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->model.name, "mixtral-8x7b");
  EXPECT_EQ(small->tp, 4);
  EXPECT_EQ(small->ep, 8);  // the model has 8 experts
  EXPECT_EQ(small->world_size(), 64);
  absl::StatusOr<JobSpec> big = MoeJobForGpuCount(1024, nvl72);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->model.name, "deepseek-v3");
  EXPECT_EQ(big->tp * big->ep, 64);  // 16 trays of one 18-tray rack
  EXPECT_EQ(big->pp, 16);
  // On 8-GPU hosts whose NVLink ends at the host, TP x EP fills one host.
  absl::StatusOr<JobSpec> rail = MoeJobForGpuCount(1024);
  ASSERT_TRUE(rail.ok()) << rail.status();
  EXPECT_EQ(rail->tp * rail->ep, 8);
}

TEST(DegreeRule, RejectsNonPositiveCounts) {
  EXPECT_FALSE(JobForGpuCount(0).ok());
  EXPECT_FALSE(JobForGpuCount(-4).ok());
}

}  // namespace
}  // namespace topoplace::sched::sim
