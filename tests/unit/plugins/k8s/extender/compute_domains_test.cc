#include "plugins/k8s/extender/compute_domains.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "plugins/k8s/extender/pod_group.h"

namespace topoplace::k8s {
namespace {

using json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// An API server that holds ComputeDomains by path and answers the pending pod list with
// `pods`; every call is recorded. (The real one: tests/integration/k8s, against
// kube-apiserver v1.36 with NVIDIA's CRD.)
class InMemoryKubeApi : public KubeApi {
 public:
  json pods = json::array();
  std::map<std::string, json> domains;  // path -> object
  bool crd_installed = true;
  std::vector<std::string> calls;

  absl::StatusOr<KubeReply> Send(absl::string_view method, absl::string_view path,
                                 absl::string_view body) override {
    calls.push_back(absl::StrCat(method, " ", path));
    if (absl::StartsWith(path, "/api/v1/pods?")) {
      return KubeReply{200, json{{"kind", "PodList"}, {"items", pods}}.dump()};
    }
    if (!crd_installed) return KubeReply{404, R"({"kind":"Status","message":"not found"})"};
    if (method == "GET") {
      auto it = domains.find(std::string(path));
      if (it == domains.end()) return KubeReply{404, R"({"kind":"Status","reason":"NotFound"})"};
      return KubeReply{200, it->second.dump()};
    }
    json cd = json::parse(body);
    const std::string at = absl::StrCat(path, "/", cd["metadata"]["name"].get<std::string>());
    if (domains.contains(at)) return KubeReply{409, R"({"kind":"Status","message":"exists"})"};
    domains[at] = cd;
    return KubeReply{201, cd.dump()};
  }
};

json Pod(const std::string& name, const std::string& group, const std::string& label,
         const std::string& spec = "tp=4,pp=1,dp=3,gpus_per_node=4") {
  return {{"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"uid", name + "-uid"},
            {"labels", {{kComputeDomainLabel, label}}},
            {"annotations",
             {{kJobSpecAnnotation, spec}, {kGroupAnnotation, group}, {kRankAnnotation, "0"}}},
            {"ownerReferences", json::array({{{"apiVersion", "batch/v1"},
                                              {"kind", "Job"},
                                              {"name", group},
                                              {"uid", group + "-job-uid"},
                                              {"controller", true}}})}}}};
}

constexpr char kDomains[] = "/apis/resource.nvidia.com/v1beta1/namespaces/ml/computedomains";

TEST(ComputeDomainKeeper, AutoCreatesOneDomainPerGroupOwnedByItsJobWithItsChannelTemplate) {
  InMemoryKubeApi api;
  api.pods = {Pod("moe-0", "moe", "auto"), Pod("moe-1", "moe", "auto")};
  ComputeDomainKeeper keeper(api);
  absl::StatusOr<ComputeDomainKeeper::Pass> pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, ElementsAre("ml/moe"));
  EXPECT_THAT(pass->problems, IsEmpty());
  const json& cd = api.domains.at(absl::StrCat(kDomains, "/moe"));
  EXPECT_EQ(cd["apiVersion"], "resource.nvidia.com/v1beta1");
  EXPECT_EQ(cd["spec"]["numNodes"], 3);
  EXPECT_EQ(cd["spec"]["channel"]["resourceClaimTemplate"]["name"], "moe-channel");
  EXPECT_EQ(cd["metadata"]["labels"][kManagedByLabel], kManagedByExtender);
  EXPECT_EQ(cd["metadata"]["ownerReferences"][0]["kind"], "Job");
  EXPECT_EQ(cd["metadata"]["ownerReferences"][0]["uid"], "moe-job-uid");

  // The next pass finds it and creates nothing.
  pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, IsEmpty());
  EXPECT_THAT(pass->found, ElementsAre("ml/moe"));
}

TEST(ComputeDomainKeeper, ANamedDomainIsAdoptedNeverCreatedAndReportedWhileMissing) {
  InMemoryKubeApi api;
  api.pods = {Pod("a-0", "a", "shared-cd")};
  ComputeDomainKeeper keeper(api);
  absl::StatusOr<ComputeDomainKeeper::Pass> pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, IsEmpty());
  EXPECT_THAT(api.domains, IsEmpty());
  ASSERT_EQ(pass->problems.size(), 1u);
  EXPECT_THAT(pass->problems[0], HasSubstr("waits for its ComputeDomain ml/shared-cd"));

  // The workload's own, with a numNodes that disagrees with the group's 3 nodes.
  api.domains[absl::StrCat(kDomains, "/shared-cd")] = {{"spec", {{"numNodes", 2}}}};
  pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->found, ElementsAre("ml/shared-cd"));
  ASSERT_EQ(pass->problems.size(), 1u);
  EXPECT_THAT(pass->problems[0], HasSubstr("numNodes 2 but group a runs on 3 nodes"));
  api.domains[absl::StrCat(kDomains, "/shared-cd")] = {{"spec", {{"numNodes", 0}}}};
  pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->problems, IsEmpty());  // 0: the driver's recommended "not counted"
}

TEST(ComputeDomainKeeper, BadPodsAreReportedAndTheOthersStillServed) {
  InMemoryKubeApi api;
  json no_spec = Pod("x-0", "x", "auto");
  no_spec["metadata"]["annotations"].erase(kJobSpecAnnotation);
  api.pods = {no_spec, Pod("y-0", "Y_bad", "auto"), Pod("z-0", "z", "auto")};
  ComputeDomainKeeper keeper(api);
  absl::StatusOr<ComputeDomainKeeper::Pass> pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, ElementsAre("ml/z"));
  ASSERT_EQ(pass->problems.size(), 2u);
  EXPECT_THAT(pass->problems[0],
              HasSubstr("pod ml/x-0: label topoplace.io/compute-domain without"));
  EXPECT_THAT(pass->problems[1], HasSubstr("'Y_bad' cannot name a ComputeDomain"));
}

TEST(ComputeDomainKeeper, WithoutNvidiasCrdTheCreateSaysWhatToInstall) {
  InMemoryKubeApi api;
  api.crd_installed = false;
  api.pods = {Pod("moe-0", "moe", "auto")};
  ComputeDomainKeeper keeper(api);
  absl::StatusOr<ComputeDomainKeeper::Pass> pass = keeper.Sync();
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(pass.status().message()), HasSubstr("install NVIDIA's DRA driver"));
}

TEST(ComputeDomainKeeper, OnlyUnscheduledLabelledPodsAreListed) {
  InMemoryKubeApi api;
  ComputeDomainKeeper keeper(api);
  ASSERT_TRUE(keeper.Sync().ok());
  ASSERT_EQ(api.calls.size(), 1u);
  EXPECT_THAT(api.calls[0], HasSubstr("labelSelector=topoplace.io%2Fcompute-domain"));
  EXPECT_THAT(api.calls[0], HasSubstr("fieldSelector=spec.nodeName%3D"));
}

// A group bound between two passes is no longer in the pending list: the pods the filter
// noted still get their domain, once.
TEST(ComputeDomainKeeper, PodsTheFilterNotedGetTheirDomainThoughAlreadyBound) {
  InMemoryKubeApi api;  // lists no pending pod
  ComputeDomainKeeper keeper(api);
  absl::StatusOr<PodInfo> pod = ParsePod(Pod("fast-0", "fast", "auto"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  keeper.Note(*pod);
  keeper.Note(*pod);
  absl::StatusOr<ComputeDomainKeeper::Pass> pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, ElementsAre("ml/fast"));
  pass = keeper.Sync();
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_THAT(pass->created, IsEmpty());
  EXPECT_THAT(pass->found, IsEmpty()) << "noted pods are seen to once";
}

}  // namespace
}  // namespace topoplace::k8s
