// A study runs what `topoplace simulate` asks for below the CLI: every policy at every
// load (the trace's arrivals divided by load_scale x factor), each run the simulator's own,
// and with faults every load at every fault scale plus topoplace's blind control run.
#include "scheduler/sim/study.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduler/sim/metrics.h"
#include "scheduler/sim/synthetic_trace.h"
#include "tests/unit/scheduler/sim/tiny_fabric.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class StudyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
    ASSERT_TRUE(fabric.ok()) << fabric.status();
    study_.fabric = *fabric;
    absl::StatusOr<Trace> trace =
        LoadStudyTrace(**fabric, {.trace = std::string(kLargeMixTraceName), .jobs = 40, .seed = 3});
    ASSERT_TRUE(trace.ok()) << trace.status();
    study_.trace = *trace;
    study_.policies = {"topoplace", "first-fit"};
    study_.load_scale = 0.5;
    study_.options.seed = 3;
    study_.options.shared_links = true;
  }

  Study study_;
};

TEST_F(StudyTest, EveryPolicyAtEveryLoadIsTheSimulatorsOwnRun) {
  study_.load_factors = {1, 4};
  absl::StatusOr<StudyResult> out = RunStudy(study_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->loads.size(), 2u);
  EXPECT_TRUE(out->fault_points.empty());
  for (size_t i = 0; i < 2; ++i) {
    const SweepPoint& point = out->loads[i];
    const double factor = study_.load_factors[i];
    EXPECT_EQ(point.factor, factor);
    EXPECT_EQ(point.info.load_scale, 0.5 * factor);
    EXPECT_EQ(point.info.network, "shared");
    EXPECT_EQ(point.info.jobs, 40);
    ASSERT_EQ(point.results.size(), 2u);
    ASSERT_EQ(point.metrics.size(), 2u);
    Trace scaled = study_.trace;
    ASSERT_TRUE(ScaleLoad(scaled, 0.5 * factor).ok());
    for (size_t p = 0; p < 2; ++p) {
      absl::StatusOr<SimResult> alone =
          Simulator(study_.fabric, study_.options).Run(scaled, study_.policies[p]);
      ASSERT_TRUE(alone.ok()) << alone.status();
      EXPECT_EQ(point.metrics[p].policy, study_.policies[p]);
      EXPECT_EQ(point.metrics[p].mean_jct_s, Summarize(*alone).mean_jct_s);
      EXPECT_EQ(point.metrics[p].total_spine_bytes, Summarize(*alone).total_spine_bytes);
    }
  }
}

TEST_F(StudyTest, WithFaultsEveryLoadRunsAtEveryScaleWithTopoplacesBlindControl) {
  study_.load_factors = {1, 2};
  study_.faults = FaultStudy{.replay = nullptr, .scales = {0, 50}, .seed = 9};
  absl::StatusOr<StudyResult> out = RunStudy(study_);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->loads.empty());
  ASSERT_EQ(out->fault_points.size(), 4u);
  std::vector<std::pair<double, double>> order;
  for (const FaultSweepPoint& point : out->fault_points) {
    order.emplace_back(point.run.factor, point.fault_scale);
    std::vector<std::string> names;
    for (const PolicyMetrics& m : point.run.metrics) names.push_back(m.policy);
    EXPECT_THAT(names, ElementsAre("topoplace", "first-fit", std::string(kBlindTopoplaceLabel)));
  }
  EXPECT_THAT(order, ElementsAre(std::pair(1.0, 0.0), std::pair(1.0, 50.0), std::pair(2.0, 0.0),
                                 std::pair(2.0, 50.0)));
  ASSERT_NE(out->last_schedule, nullptr);
  EXPECT_THAT(out->last_schedule->source, HasSubstr("published"));
  EXPECT_FALSE(out->last_schedule->events.empty()) << "50x the published rates fail something";
  EXPECT_GT(out->fault_points[1].run.metrics[0].faults_applied, 0);
}

TEST_F(StudyTest, AStudyAtLoadScaleForOfferRunsAtTheOfferedLoadsItsFactorsSay) {
  absl::StatusOr<double> scale = LoadScaleForOffer(study_.trace, *study_.fabric, 1);
  ASSERT_TRUE(scale.ok()) << scale.status();
  study_.load_scale = *scale;
  study_.load_factors = {0.3, 0.85};
  absl::StatusOr<StudyResult> out = RunStudy(study_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->loads.size(), 2u);
  EXPECT_NEAR(out->loads[0].info.offered_load, 0.3, 1e-12);
  EXPECT_NEAR(out->loads[1].info.offered_load, 0.85, 1e-12);

  Trace one = study_.trace;
  one.jobs.resize(1);
  EXPECT_EQ(LoadScaleForOffer(one, *study_.fabric, 1).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "one arrival offers no load over a span";
  EXPECT_EQ(LoadScaleForOffer(study_.trace, *study_.fabric, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LoadStudyTrace, ShapesTheMixForTheFabricAndRefusesANegativeJobCount) {
  absl::StatusOr<FabricPtr> fabric = TinyOversubscribedFabric();
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  absl::StatusOr<Trace> mix = LoadStudyTrace(**fabric, {.trace = std::string(kMoeMixTraceName)});
  ASSERT_TRUE(mix.ok()) << mix.status();
  EXPECT_EQ(mix->jobs.size(), 1000u) << "the mix's default size";
  absl::StatusOr<Trace> bad =
      LoadStudyTrace(**fabric, {.trace = std::string(kLargeMixTraceName), .jobs = -1});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("--jobs"));
  absl::StatusOr<Trace> missing = LoadStudyTrace(**fabric, {.trace = "/nonexistent/trace.csv"});
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace topoplace::sched::sim
