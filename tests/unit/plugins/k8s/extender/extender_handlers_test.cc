#include "plugins/k8s/extender/extender_handlers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/unit/plugins/k8s/extender/fake_placement_backend.h"
#include "tests/unit/plugins/k8s/extender/recorded_requests.h"

namespace topoplace::k8s {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using testing::FakeClock;
using testing::FakePlacementBackend;
using testing::LoadRecordedRequests;
using testing::WithAnnotations;

// The recorded cluster had nodes node-a1, node-a2, node-b1, node-b2.
class ExtenderHandlersTest : public ::testing::Test {
 protected:
  ExtenderHandlersTest() {
    auto backend = std::make_unique<FakePlacementBackend>(
        std::vector<std::string>{"node-b1", "node-b2", "node-a1", "node-a2"}, &clock_);
    backend_ = backend.get();
    planner_ = std::make_unique<GangPlanner>(std::move(backend), PlannerOptions{},
                                             [this] { return clock_(); });
    handlers_ = std::make_unique<ExtenderHandlers>(*planner_);
  }

  // The recorded 4-node filter request for rank `rank` of a 2-node group.
  std::string GroupFilterBody(int rank) {
    return WithAnnotations(recorded_[1].body,
                           {{"topoplace.io/job-spec", "nodes=2"},
                            {"topoplace.io/group", "trainer"},
                            {"batch.kubernetes.io/job-completion-index", std::to_string(rank)}});
  }

  FakeClock clock_;
  FakePlacementBackend* backend_ = nullptr;
  std::unique_ptr<GangPlanner> planner_;
  std::unique_ptr<ExtenderHandlers> handlers_;
  std::vector<testing::RecordedRequest> recorded_ = LoadRecordedRequests();
};

TEST_F(ExtenderHandlersTest, RecordedUnannotatedPodPassesEveryNodeUntouched) {
  HttpAnswer a = handlers_->Filter(recorded_[1].body);

  ASSERT_EQ(a.status, 200);
  json answer = json::parse(a.body);
  EXPECT_EQ(answer["NodeNames"], json({"node-a1", "node-a2", "node-b1", "node-b2"}));
  EXPECT_EQ(answer["FailedNodes"], json::object());
  EXPECT_EQ(answer["FailedAndUnresolvableNodes"], json::object());
  EXPECT_EQ(answer["Error"], "");
  EXPECT_EQ(backend_->reserve_calls, 0) << "unrelated pods never reach topoplaced";
}

TEST_F(ExtenderHandlersTest, RecordedPrioritizeForAnUnrelatedPodIsTheMildScore) {
  HttpAnswer a = handlers_->Prioritize(recorded_[2].body);

  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(json::parse(a.body), json::parse(R"([{"Host":"node-b1","Score":1},
                                                 {"Host":"node-b2","Score":1}])"));
}

TEST_F(ExtenderHandlersTest, AnnotatedRecordedPodIsSteeredToItsPlannedNodeByRank) {
  json rank0 = json::parse(handlers_->Filter(GroupFilterBody(0)).body);
  json rank1 = json::parse(handlers_->Filter(GroupFilterBody(1)).body);

  EXPECT_EQ(rank0["NodeNames"], json({"node-b1"}));
  EXPECT_EQ(rank1["NodeNames"], json({"node-b2"}));
  EXPECT_EQ(rank1["FailedAndUnresolvableNodes"].size(), 3u);
  EXPECT_THAT(rank1["FailedAndUnresolvableNodes"]["node-a1"].get<std::string>(),
              HasSubstr("default/trainer rank 1 is planned on node node-b2"));
  EXPECT_EQ(backend_->allocations.at("alloc-1").external_id, "k8s:default/trainer");
}

TEST_F(ExtenderHandlersTest, PrioritizeGivesTenToThePlannedNode) {
  handlers_->Filter(GroupFilterBody(1));
  json body = json::parse(GroupFilterBody(1));
  HttpAnswer a = handlers_->Prioritize(body.dump());

  EXPECT_EQ(json::parse(a.body), json::parse(R"([{"Host":"node-a1","Score":0},
      {"Host":"node-a2","Score":0},{"Host":"node-b1","Score":0},{"Host":"node-b2","Score":10}])"));
}

TEST_F(ExtenderHandlersTest, JobSpecPodWithoutRankFailsEveryNodeWithTheReason) {
  std::string body = WithAnnotations(
      recorded_[1].body, {{"topoplace.io/job-spec", "nodes=2"}, {"topoplace.io/group", "t"}});
  json answer = json::parse(handlers_->Filter(body).body);

  EXPECT_EQ(answer["NodeNames"], json::array());
  EXPECT_EQ(answer["FailedAndUnresolvableNodes"].size(), 4u);
  EXPECT_THAT(answer["FailedAndUnresolvableNodes"]["node-b1"].get<std::string>(),
              HasSubstr("no topoplace.io/rank or batch.kubernetes.io/job-completion-index"));
  EXPECT_EQ(backend_->reserve_calls, 0);
}

TEST_F(ExtenderHandlersTest, MalformedJsonIs400WithTheErrorInBothVerbs) {
  HttpAnswer filter = handlers_->Filter("{\"Pod\": ");
  HttpAnswer prioritize = handlers_->Prioritize("not json");

  EXPECT_EQ(filter.status, 400);
  EXPECT_THAT(json::parse(filter.body)["Error"].get<std::string>(), HasSubstr("malformed JSON"));
  EXPECT_EQ(prioritize.status, 400);
  EXPECT_THAT(json::parse(prioritize.body)["Error"].get<std::string>(),
              HasSubstr("malformed JSON"));
}

TEST_F(ExtenderHandlersTest, ServiceDownAnswersFilterWithErrorForANewGroup) {
  backend_->unavailable = true;
  HttpAnswer a = handlers_->Filter(GroupFilterBody(0));

  ASSERT_EQ(a.status, 200);
  json answer = json::parse(a.body);
  EXPECT_THAT(answer["Error"].get<std::string>(), HasSubstr("cannot plan group default/trainer"));
}

TEST_F(ExtenderHandlersTest, PreemptLeavesTheSchedulersChoiceForPodsThatAreNotOurs) {
  json body = json::parse(recorded_[1].body);
  json args = {{"Pod", body["Pod"]},
               {"NodeNameToMetaVictims",
                {{"node-a1", {{"Pods", {{{"UID", "u1"}}}}, {"NumPDBViolations", 0}}}}}};
  HttpAnswer a = handlers_->Preempt(args.dump());

  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(json::parse(a.body)["NodeNameToMetaVictims"], args["NodeNameToMetaVictims"]);
  EXPECT_EQ(backend_->preemption_specs.size(), 0u);
}

TEST_F(ExtenderHandlersTest, PreemptForAGroupPodAsksTopoplacedAndMalformedIs400) {
  json body = json::parse(GroupFilterBody(0));
  json args = {{"Pod", body["Pod"]}, {"NodeNameToMetaVictims", json::object()}};
  HttpAnswer a = handlers_->Preempt(args.dump());
  HttpAnswer bad = handlers_->Preempt("[");

  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(json::parse(a.body)["NodeNameToMetaVictims"], json::object());
  EXPECT_EQ(backend_->preemption_specs.size(), 1u);
  EXPECT_EQ(bad.status, 400);
}

}  // namespace
}  // namespace topoplace::k8s
