#include "plugins/k8s/extender/extender_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/unit/plugins/k8s/extender/recorded_requests.h"

namespace topoplace::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using json = nlohmann::json;

TEST(ExtenderWire, RecordedKubeScheduler120RequestsParseIntoPodAndCandidateNames) {
  std::vector<testing::RecordedRequest> requests = testing::LoadRecordedRequests();
  ASSERT_EQ(requests.size(), 3u);

  std::vector<std::vector<std::string>> names;
  for (const testing::RecordedRequest& r : requests) {
    absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(r.body);
    ASSERT_TRUE(args.ok()) << r.path << ": " << args.status();
    EXPECT_EQ(args->pod.name, "trainer-0");
    EXPECT_EQ(args->pod.namespace_name, "default");
    EXPECT_EQ(args->pod.uid, "e192cd33-69a9-4ec2-a100-c1bda5a5235b");
    EXPECT_FALSE(args->has_node_objects) << "recorded with nodeCacheCapable: true";
    EXPECT_EQ(args->pod.priority, 0) << "admission set spec.priority (no PriorityClass: 0)";
    names.push_back(args->node_names);
  }
  EXPECT_EQ(requests[0].path, "/topo/filter");
  EXPECT_EQ(requests[2].path, "/topo/prioritize");
  EXPECT_THAT(names[0], ElementsAre("node-a1"));
  EXPECT_THAT(names[1], ElementsAre("node-a1", "node-a2", "node-b1", "node-b2"));
  EXPECT_THAT(names[2], ElementsAre("node-b1", "node-b2"));
}

TEST(ExtenderWire, NodeNamesModeAnswersNodeNamesWithNullNodes) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(testing::LoadRecordedRequests()[1].body);
  ASSERT_TRUE(args.ok());
  FilterVerdict verdict;
  verdict.exceptions["node-a2"] = {FilterVerdict::Outcome::kFail, "busy"};
  verdict.exceptions["node-b1"] = {FilterVerdict::Outcome::kUnresolvable, "not planned"};

  json answer = json::parse(EncodeFilterResult(*args, verdict));

  EXPECT_TRUE(answer["Nodes"].is_null());
  EXPECT_EQ(answer["NodeNames"], json({"node-a1", "node-b2"}));
  EXPECT_EQ(answer["FailedNodes"], json({{"node-a2", "busy"}}));
  EXPECT_EQ(answer["FailedAndUnresolvableNodes"], json({{"node-b1", "not planned"}}));
  EXPECT_EQ(answer["Error"], "");
}

TEST(ExtenderWire, NodeObjectsModeReadsNamesFromItemsAndEchoesThePassingObjects) {
  // nodeCacheCapable: false sends whole v1.Node objects in Nodes.items.
  json body = json::parse(testing::LoadRecordedRequests()[1].body);
  body["NodeNames"] = nullptr;
  body["Nodes"] = {{"metadata", {{"resourceVersion", "7"}}}, {"items", json::array()}};
  for (const char* name : {"node-a1", "node-a2", "node-b1"}) {
    body["Nodes"]["items"].push_back(
        {{"metadata", {{"name", name}, {"labels", {{"topoplace.io/block", "block-00"}}}}},
         {"status", {{"allocatable", {{"nvidia.com/gpu", "8"}, {"pods", "110"}}}}}});
  }
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(body.dump());
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->has_node_objects);
  EXPECT_THAT(args->node_names, ElementsAre("node-a1", "node-a2", "node-b1"));

  FilterVerdict verdict;
  verdict.exceptions["node-a2"] = {FilterVerdict::Outcome::kUnresolvable, "not planned"};
  json answer = json::parse(EncodeFilterResult(*args, verdict));

  EXPECT_TRUE(answer["NodeNames"].is_null());
  ASSERT_EQ(answer["Nodes"]["items"].size(), 2u);
  EXPECT_EQ(answer["Nodes"]["items"][0], body["Nodes"]["items"][0]);  // unchanged object
  EXPECT_EQ(answer["Nodes"]["items"][1], body["Nodes"]["items"][2]);
  EXPECT_EQ(answer["FailedAndUnresolvableNodes"], json({{"node-a2", "not planned"}}));
}

TEST(ExtenderWire, RequestWithNeitherNodeListHasNoCandidates) {
  absl::StatusOr<ExtenderArgs> args =
      ParseExtenderArgs(R"({"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":null})");
  ASSERT_TRUE(args.ok());
  EXPECT_THAT(args->node_names, IsEmpty());
  EXPECT_EQ(args->pod.namespace_name, "default");
}

TEST(ExtenderWire, MalformedRequestsAreInvalidArgumentNamingTheProblem) {
  struct Case {
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {"", "malformed JSON"},
      {R"({"Pod": {"metadata": {}})", "malformed JSON"},  // cut short
      {"[1, 2]", "must be a JSON object"},
      {R"({"NodeNames": ["a"]})", "Pod missing"},
      {R"({"Pod": 7})", "Pod must be an object"},
      {R"({"Pod": {}})", "Pod.metadata missing"},
      {R"({"Pod": {"metadata": {}}, "NodeNames": "a"})", "NodeNames must be an array"},
      {R"({"Pod": {"metadata": {}}, "NodeNames": ["a", 3]})", "NodeNames must be an array"},
      {R"({"Pod": {"metadata": {}}, "Nodes": []})", "Nodes must be a NodeList"},
      {R"({"Pod": {"metadata": {}}, "Nodes": {"items": {}}})", "Nodes.items must be an array"},
      {R"({"Pod": {"metadata": {}}, "Nodes": {"items": [{"metadata": {}}]}})",
       "needs metadata.name"},
      {R"({"Pod": {"metadata": {}, "spec": {"priority": "high"}}})",
       "Pod.spec.priority must be an integer"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(c.body);
    ASSERT_FALSE(args.ok()) << c.body;
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument) << c.body;
    EXPECT_THAT(args.status().message(), HasSubstr(c.message)) << c.body;
  }
}

TEST(ExtenderWire, AnnotationsLabelsAndTheControllerAreRead) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(R"({"Pod": {"metadata": {
      "name": "w-1", "namespace": "ml", "uid": "u1",
      "annotations": {"topoplace.io/job-spec": "tp=8,dp=2", "odd": 3},
      "labels": {"job-name": "w"},
      "ownerReferences": [{"kind": "Other", "uid": "x"},
                          {"apiVersion": "batch/v1", "kind": "Job", "name": "w",
                           "uid": "job-uid", "controller": true}]}}})");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->pod.namespace_name, "ml");
  EXPECT_EQ(args->pod.annotations.at("topoplace.io/job-spec"), "tp=8,dp=2");
  EXPECT_FALSE(args->pod.annotations.contains("odd")) << "non-string values are skipped";
  EXPECT_EQ(args->pod.labels.at("job-name"), "w");
  EXPECT_EQ(args->pod.controller_uid, "job-uid");
  EXPECT_EQ(args->pod.controller_api_version, "batch/v1");
  EXPECT_EQ(args->pod.controller_kind, "Job");
  EXPECT_EQ(args->pod.controller_name, "w");
  EXPECT_FALSE(args->pod.priority.has_value()) << "no spec.priority";
}

TEST(ExtenderWire, ThePodsPriorityIsRead) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(
      R"({"Pod": {"metadata": {"name": "w"}, "spec": {"priorityClassName": "train-high",
          "priority": 2000001000}}})");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->pod.priority, 2000001000);
}

TEST(ExtenderWire, ThePodsActiveDeadlineIsReadAndMustBeAPositiveInteger) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(
      R"({"Pod": {"metadata": {"name": "w"}, "spec": {"activeDeadlineSeconds": 28800}}})");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->pod.active_deadline_seconds, 28800);
  for (const char* bad : {"0", "-5", "1.5", "\"8h\""}) {
    absl::StatusOr<ExtenderArgs> refused = ParseExtenderArgs(absl::StrCat(
        R"({"Pod": {"metadata": {"name": "w"}, "spec": {"activeDeadlineSeconds": )", bad, "}}}"));
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("activeDeadlineSeconds")) << bad;
  }
}

TEST(ExtenderWire, FailuresForNodesThatWereNotCandidatesAreLeftOut) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(testing::LoadRecordedRequests()[0].body);
  ASSERT_TRUE(args.ok());
  FilterVerdict verdict;
  verdict.exceptions["node-zz"] = {FilterVerdict::Outcome::kFail, "unknown"};

  json answer = json::parse(EncodeFilterResult(*args, verdict));

  EXPECT_EQ(answer["NodeNames"], json({"node-a1"}));
  EXPECT_EQ(answer["FailedNodes"], json::object());
}

TEST(ExtenderWire, OneOutcomeForAllCandidatesWithExceptionsCoversEveryNode) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(testing::LoadRecordedRequests()[1].body);
  ASSERT_TRUE(args.ok());
  FilterVerdict verdict;
  verdict.All(FilterVerdict::Outcome::kUnresolvable, "planned on node-b2");
  verdict.exceptions["node-b2"] = {};

  json answer = json::parse(EncodeFilterResult(*args, verdict));

  EXPECT_EQ(answer["NodeNames"], json({"node-b2"}));
  EXPECT_EQ(answer["FailedAndUnresolvableNodes"], json({{"node-a1", "planned on node-b2"},
                                                        {"node-a2", "planned on node-b2"},
                                                        {"node-b1", "planned on node-b2"}}));
  EXPECT_EQ(answer["FailedNodes"], json::object());
}

TEST(ExtenderWire, NamesAndReasonsAreEscapedAsJsonStrings) {
  absl::StatusOr<ExtenderArgs> args = ParseExtenderArgs(
      R"({"Pod": {"metadata": {}}, "NodeNames": ["q\"uote", "back\\slash", "tab\there", "ü"]})");
  ASSERT_TRUE(args.ok()) << args.status();
  FilterVerdict verdict;
  verdict.All(FilterVerdict::Outcome::kFail, "line\nbreak \"quoted\"");
  verdict.exceptions["ü"] = {};

  json answer = json::parse(EncodeFilterResult(*args, verdict));

  EXPECT_EQ(answer["NodeNames"], json({"ü"}));
  EXPECT_EQ(answer["FailedNodes"]["q\"uote"], "line\nbreak \"quoted\"");
  EXPECT_TRUE(answer["FailedNodes"].contains("back\\slash"));
  EXPECT_TRUE(answer["FailedNodes"].contains("tab\there"));
  EXPECT_EQ(json::parse(EncodeHostPriorities({{"a\"b", 3}}))[0]["Host"], "a\"b");
}

TEST(ExtenderWire, FilterErrorAnswerCarriesOnlyTheError) {
  json answer = json::parse(EncodeFilterError("topoplaced unreachable"));

  EXPECT_EQ(answer["Error"], "topoplaced unreachable");
  EXPECT_TRUE(answer["NodeNames"].is_null());
  EXPECT_EQ(answer["FailedNodes"], json::object());
}

TEST(ExtenderWire, PrioritiesUseGoFieldNamesAndClampScoresToZeroToTen) {
  json answer = json::parse(EncodeHostPriorities({{"a", 10}, {"b", 0}, {"c", 42}, {"d", -3}}));

  EXPECT_EQ(answer, json::parse(R"([{"Host":"a","Score":10},{"Host":"b","Score":0},
                                    {"Host":"c","Score":10},{"Host":"d","Score":0}])"));
}

// The preempt verb as kube-scheduler v1.20 sends it (extenderv1.ExtenderPreemptionArgs,
// Go field names): with nodeCacheCapable the victims are MetaPods (UIDs), otherwise pods.
constexpr char kPreemptPod[] =
    R"({"metadata": {"name": "g4-3", "namespace": "default", "uid": "u-g4-3",
                     "annotations": {"topoplace.io/job-spec": "tp=8,pp=1,dp=4"}},
        "spec": {"priority": 1000}})";

TEST(ExtenderWire, PreemptArgsWithMetaVictimsReadUidsPerNode) {
  absl::StatusOr<PreemptionArgs> args = ParsePreemptionArgs(absl::StrCat(
      R"({"Pod": )", kPreemptPod, R"(, "NodeNameToVictims": null, "NodeNameToMetaVictims": {
          "n5": {"Pods": [{"UID": "u-g2-0"}], "NumPDBViolations": 0},
          "n6": {"Pods": [{"UID": "u-g3-0"}, {"UID": "u-plain"}], "NumPDBViolations": 1}}})"));

  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->pod.name, "g4-3");
  EXPECT_EQ(args->pod.priority, 1000);
  ASSERT_EQ(args->victims.size(), 2u);
  EXPECT_THAT(args->victims.at("n5").pod_uids, ElementsAre("u-g2-0"));
  EXPECT_THAT(args->victims.at("n6").pod_uids, ElementsAre("u-g3-0", "u-plain"));
  EXPECT_EQ(args->victims.at("n6").pdb_violations, 1);
}

TEST(ExtenderWire, PreemptArgsWithWholePodsReadTheirMetadataUids) {
  absl::StatusOr<PreemptionArgs> args =
      ParsePreemptionArgs(absl::StrCat(R"({"Pod": )", kPreemptPod, R"(, "NodeNameToVictims": {
          "n5": {"Pods": [{"metadata": {"name": "g2-0", "uid": "u-g2-0"}}],
                 "NumPDBViolations": 0}}})"));

  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(args->victims.at("n5").pod_uids, ElementsAre("u-g2-0"));
}

TEST(ExtenderWire, MalformedPreemptArgsNameTheirPart) {
  const std::string pod = absl::StrCat(R"({"Pod": )", kPreemptPod);
  EXPECT_THAT(ParsePreemptionArgs(pod + R"(, "NodeNameToMetaVictims": [1]})").status().message(),
              HasSubstr("NodeNameToMetaVictims must be an object"));
  EXPECT_THAT(ParsePreemptionArgs(pod + R"(, "NodeNameToMetaVictims": {"n1": {"Pods": [{}]}}})")
                  .status()
                  .message(),
              HasSubstr("NodeNameToMetaVictims[n1].Pods entries need a UID"));
  EXPECT_THAT(ParsePreemptionArgs(pod + R"(, "NodeNameToVictims": {"n1": {"Pods": [{}]}}})")
                  .status()
                  .message(),
              HasSubstr("NodeNameToVictims[n1].Pods entries need metadata.uid"));
  EXPECT_THAT(ParsePreemptionArgs(R"({"NodeNameToMetaVictims": {}})").status().message(),
              HasSubstr("Pod missing"));
}

TEST(ExtenderWire, PreemptAnswerIsAlwaysNodeNameToMetaVictims) {
  json answer = json::parse(EncodePreemptionResult({{"n5", {{"u-g2-0"}, 0}}}));
  json none = json::parse(EncodePreemptionResult({}));

  EXPECT_EQ(answer, json::parse(R"({"NodeNameToMetaVictims":
      {"n5": {"Pods": [{"UID": "u-g2-0"}], "NumPDBViolations": 0}}})"));
  EXPECT_EQ(none, json::parse(R"({"NodeNameToMetaVictims": {}})"));
}

}  // namespace
}  // namespace topoplace::k8s
