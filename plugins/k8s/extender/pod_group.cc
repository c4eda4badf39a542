#include "plugins/k8s/extender/pod_group.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace topoplace::k8s {
namespace {

const std::string* Find(const std::map<std::string, std::string>& map, const char* key) {
  auto it = map.find(key);
  if (it == map.end()) return nullptr;
  return &it->second;
}

// True if `spec` has a priority= key (keys are the comma-separated tokens' left sides).
bool NamesPriority(absl::string_view spec) {
  for (absl::string_view token : absl::StrSplit(spec, ',')) {
    if (absl::StartsWith(absl::StripAsciiWhitespace(token), "priority=")) return true;
  }
  return false;
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
  // The pod's own priority (from its PriorityClass) unless the job spec names one.
  if (pod.priority.has_value() && *pod.priority != 0 && !NamesPriority(member.job_spec)) {
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
  return member;
}

std::string GroupExternalId(const std::string& group_key) {
  return absl::StrCat("k8s:", group_key);
}

}  // namespace topoplace::k8s
