#include "plugins/k8s/extender/pod_group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/job/job_spec.h"

namespace topoplace::k8s {
namespace {

using ::testing::HasSubstr;

PodInfo Pod(std::map<std::string, std::string> annotations,
            std::map<std::string, std::string> labels = {}) {
  PodInfo pod;
  pod.name = "trainer-3";
  pod.namespace_name = "ml";
  pod.uid = "pod-uid";
  pod.controller_uid = "job-uid";
  pod.annotations = std::move(annotations);
  pod.labels = std::move(labels);
  return pod;
}

TEST(PodGroup, PodWithoutAJobSpecIsNotOurs) {
  auto member = ReadGroupMember(Pod({{kGroupAnnotation, "g"}, {kRankAnnotation, "1"}}));
  ASSERT_TRUE(member.ok());
  EXPECT_FALSE(member->has_value());
}

TEST(PodGroup, IndexedJobPodTakesItsRankFromTheCompletionIndex) {
  auto member = ReadGroupMember(Pod({{kJobSpecAnnotation, " tp=8,dp=4 "},
                                     {kGroupAnnotation, "llama"},
                                     {kCompletionIndexAnnotation, "3"}}));
  ASSERT_TRUE(member.ok()) << member.status();
  ASSERT_TRUE(member->has_value());
  EXPECT_EQ((*member)->group_key, "ml/llama");
  EXPECT_EQ((*member)->job_spec, "tp=8,dp=4");
  EXPECT_EQ((*member)->rank, 3);
  EXPECT_EQ((*member)->pod_uid, "pod-uid");
  EXPECT_EQ((*member)->owner_uid, "job-uid");
}

TEST(PodGroup, ThePodsActiveDeadlineIsTheJobsExpectedRun) {
  PodInfo pod =
      Pod({{kJobSpecAnnotation, "tp=8"}, {kGroupAnnotation, "g"}, {kRankAnnotation, "0"}});
  EXPECT_EQ((*ReadGroupMember(pod))->run_seconds, 0) << "no deadline, no run";
  pod.active_deadline_seconds = 8 * 3600;
  EXPECT_EQ((*ReadGroupMember(pod))->run_seconds, 8 * 3600);
}

TEST(PodGroup, ExplicitRankAnnotationWinsOverTheCompletionIndex) {
  auto member = ReadGroupMember(Pod({{kJobSpecAnnotation, "tp=8"},
                                     {kGroupAnnotation, "g"},
                                     {kRankAnnotation, "0"},
                                     {kCompletionIndexAnnotation, "5"}}));
  ASSERT_TRUE(member.ok());
  EXPECT_EQ((*member)->rank, 0);
}

TEST(PodGroup, GroupDefaultsToTheJobNameLabel) {
  auto member = ReadGroupMember(Pod(
      {{kJobSpecAnnotation, "tp=8"}, {kCompletionIndexAnnotation, "1"}}, {{kJobNameLabel, "w"}}));
  ASSERT_TRUE(member.ok());
  EXPECT_EQ((*member)->group_key, "ml/w");
}

TEST(PodGroup, MissingAnnotationsAreInvalidArgumentNamingThem) {
  struct Case {
    std::map<std::string, std::string> annotations;
    const char* message;
  };
  const Case cases[] = {
      {{{kJobSpecAnnotation, "  "}}, "topoplace.io/job-spec is empty"},
      {{{kJobSpecAnnotation, "tp=8"}, {kRankAnnotation, "0"}}, "no topoplace.io/group"},
      {{{kJobSpecAnnotation, "tp=8"}, {kGroupAnnotation, "g"}},
       "no topoplace.io/rank or batch.kubernetes.io/job-completion-index"},
      {{{kJobSpecAnnotation, "tp=8"}, {kGroupAnnotation, "g"}, {kRankAnnotation, "-1"}},
       "topoplace.io/rank must be a non-negative integer, got '-1'"},
      {{{kJobSpecAnnotation, "tp=8"}, {kGroupAnnotation, "g"}, {kCompletionIndexAnnotation, "x"}},
       "job-completion-index must be a non-negative integer"},
  };
  for (const Case& c : cases) {
    auto member = ReadGroupMember(Pod(c.annotations));
    ASSERT_FALSE(member.ok()) << c.message;
    EXPECT_EQ(member.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(member.status().message(), HasSubstr(c.message));
  }
}

// The pod's priority (from its PriorityClass) goes into the job spec topoplaced stores
// with the allocation; 0 (no class) adds nothing. Hardening round four, finding 7: a
// priority the annotation names itself is dropped, so a pod's author cannot outrank the
// PriorityClass the cluster's admins gave it.
TEST(PodGroup, ThePodsPriorityClassAloneSetsThePriority) {
  const auto spec_of = [](const char* annotation, std::optional<int64_t> priority) {
    PodInfo pod = Pod(
        {{kJobSpecAnnotation, annotation}, {kGroupAnnotation, "llama"}, {kRankAnnotation, "0"}});
    pod.priority = priority;
    auto member = ReadGroupMember(pod);
    EXPECT_TRUE(member.ok() && member->has_value()) << member.status();
    return member.ok() && member->has_value() ? (*member)->job_spec : std::string();
  };
  EXPECT_EQ(spec_of("tp=8,dp=4", 1000), "tp=8,dp=4,priority=1000");
  EXPECT_EQ(spec_of("tp=8,dp=4", -20), "tp=8,dp=4,priority=-20");
  EXPECT_EQ(spec_of("tp=8,priority=5,dp=4", 1000), "tp=8,dp=4,priority=1000");
  EXPECT_EQ(spec_of("tp=8,priority=4294967295", std::nullopt), "tp=8");
  EXPECT_EQ(spec_of("tp=8,dp=4", 0), "tp=8,dp=4");
  EXPECT_EQ(spec_of("tp=8,dp=4", std::nullopt), "tp=8,dp=4");
}

TEST(PodGroup, ExternalIdIsK8sNamespaceSlashGroup) {
  EXPECT_EQ(GroupExternalId("ml/llama"), "k8s:ml/llama");
}

// A ComputeDomain group is one IMEX domain: its spec is held inside one NVLink domain,
// hard, without a max_wait that would relax it across racks.
TEST(PodGroup, ComputeDomainLabelHoldsTheSpecInOneNvlinkDomain) {
  auto member = ReadGroupMember(Pod(
      {{kJobSpecAnnotation, "tp=4,pp=1,dp=6,gpus_per_node=4,max_tier=pod,mode=soft,max_wait=60"},
       {kGroupAnnotation, "moe"},
       {kRankAnnotation, "0"}},
      {{kComputeDomainLabel, kComputeDomainAuto}}));
  ASSERT_TRUE(member.ok()) << member.status();
  ASSERT_TRUE(member->has_value());
  EXPECT_EQ((*member)->compute_domain, "auto");
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec((*member)->job_spec);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->max_tier, sched::MaxTier::kNvlink);
  EXPECT_EQ(job->mode, sched::ConstraintMode::kHard);
  EXPECT_FALSE(job->max_wait_s.has_value());
  EXPECT_EQ(job->dp, 6);
  EXPECT_EQ(job->gpus_per_node, 4);

  auto plain = ReadGroupMember(
      Pod({{kJobSpecAnnotation, "tp=8,dp=2"}, {kGroupAnnotation, "g"}, {kRankAnnotation, "0"}}));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->compute_domain, "");
  EXPECT_EQ((*plain)->job_spec, "tp=8,dp=2");

  auto empty = ReadGroupMember(
      Pod({{kJobSpecAnnotation, "tp=8,dp=2"}, {kGroupAnnotation, "g"}, {kRankAnnotation, "0"}},
          {{kComputeDomainLabel, ""}}));
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr(kComputeDomainLabel));
}

}  // namespace
}  // namespace topoplace::k8s
