#include "plugins/k8s/extender/pod_group.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::k8s {
namespace {

const std::string* Find(const std::map<std::string, std::string>& map, const char* key) {
  auto it = map.find(key);
  if (it == map.end()) return nullptr;
  return &it->second;
}

// `spec` without its priority= keys (keys are the comma-separated tokens' left sides).
std::string WithoutPriority(absl::string_view spec) {
  std::vector<absl::string_view> kept;
  for (absl::string_view token : absl::StrSplit(spec, ',')) {
    if (!absl::StartsWith(absl::StripAsciiWhitespace(token), "priority=")) kept.push_back(token);
  }
  return absl::StrJoin(kept, ",");
}

// `spec` held inside one NVLink domain: max_tier=nvlink, mode=hard, no max_wait (an IMEX
// domain never spans two). A spec that does not parse is kept as it is, for topoplaced to
// refuse with its reason.
std::string InOneNvlinkDomain(const std::string& spec) {
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(spec);
  if (!job.ok()) return spec;
  job->max_tier = sched::MaxTier::kNvlink;
  job->mode = sched::ConstraintMode::kHard;
  job->max_wait_s.reset();
  return sched::FormatJobSpec(*job);
}

}  // namespace

absl::StatusOr<std::optional<GroupMember>> ReadGroupMember(const PodInfo& pod) {
  const std::string* spec = Find(pod.annotations, kJobSpecAnnotation);
  if (spec == nullptr) return std::nullopt;
  GroupMember member;
  member.job_spec = std::string(absl::StripAsciiWhitespace(*spec));
  if (member.job_spec.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("annotation ", kJobSpecAnnotation, " is empty"));
  }
  // The pod's priority is its PriorityClass's, which the cluster's admins grant; one the
  // annotation names is dropped, so a pod's author cannot raise its own (hardening round
  // four, finding 7: the annotation beat the PriorityClass, up to 2^32-1).
  member.job_spec = WithoutPriority(member.job_spec);
  if (member.job_spec.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("annotation ", kJobSpecAnnotation, " names nothing but a priority"));
  }
  if (pod.priority.has_value() && *pod.priority != 0) {
    absl::StrAppend(&member.job_spec, ",priority=", *pod.priority);
  }
  const std::string* group = Find(pod.annotations, kGroupAnnotation);
  if (group == nullptr) group = Find(pod.labels, kJobNameLabel);
  if (group == nullptr || group->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("pod has ", kJobSpecAnnotation, " but no ",
                                                   kGroupAnnotation, " annotation (or ",
                                                   kJobNameLabel, " label)"));
  }
  member.group_key = absl::StrCat(pod.namespace_name, "/", *group);
  if (pod.active_deadline_seconds)
    member.run_seconds = static_cast<double>(*pod.active_deadline_seconds);

  const char* rank_key = kRankAnnotation;
  const std::string* rank = Find(pod.annotations, kRankAnnotation);
  if (rank == nullptr) {
    rank_key = kCompletionIndexAnnotation;
    rank = Find(pod.annotations, kCompletionIndexAnnotation);
  }
  if (rank == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("pod has ", kJobSpecAnnotation, " but no ",
                                                   kRankAnnotation, " or ",
                                                   kCompletionIndexAnnotation, " annotation"));
  }
  if (!absl::SimpleAtoi(*rank, &member.rank) || member.rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "annotation ", rank_key, " must be a non-negative integer, got '", *rank, "'"));
  }
  member.pod_uid = pod.uid;
  member.owner_uid = pod.controller_uid;
  if (const std::string* domain = Find(pod.labels, kComputeDomainLabel)) {
    if (domain->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("label ", kComputeDomainLabel, " must be \"", kComputeDomainAuto,
                       "\" or the name of the workload's ComputeDomain, got an empty value"));
    }
    member.compute_domain = *domain;
    member.job_spec = InOneNvlinkDomain(member.job_spec);
  }
  return member;
}

std::string GroupExternalId(const std::string& group_key) {
  return absl::StrCat("k8s:", group_key);
}

}  // namespace topoplace::k8s
