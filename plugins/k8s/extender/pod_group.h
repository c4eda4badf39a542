// Which training-job group a pod belongs to, read from its annotations:
//
//   topoplace.io/job-spec: "tp=8,pp=2,dp=2"     the docs/DESIGN.md job spec; absent = not ours
//   topoplace.io/group:    "llama-pretrain"     group name; default: the `job-name` label
//                                               the Job controller puts on its pods
//   topoplace.io/rank:     "3"                  node rank of this pod; default: the Indexed
//                          Job annotation batch.kubernetes.io/job-completion-index
//   topoplace.io/compute-domain (a label): "auto" or a ComputeDomain's name
//                                               the group is one multi-node NVLink workload
//                                               (compute_domains.h): its spec is made
//                                               max_tier=nvlink,mode=hard without max_wait,
//                                               so it runs inside one NVLink domain or waits
//
// One pod runs one node of the plan: pod rank r runs the plan's node r (GPU ranks
// r*gpus_per_node .. (r+1)*gpus_per_node-1).
//
// Pure functions; thread-safe.
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_POD_GROUP_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_POD_GROUP_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "plugins/k8s/extender/extender_wire.h"

namespace topoplace::k8s {

inline constexpr char kJobSpecAnnotation[] = "topoplace.io/job-spec";
inline constexpr char kGroupAnnotation[] = "topoplace.io/group";
inline constexpr char kRankAnnotation[] = "topoplace.io/rank";
inline constexpr char kCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";
inline constexpr char kJobNameLabel[] = "job-name";
inline constexpr char kComputeDomainLabel[] = "topoplace.io/compute-domain";
// The label value that asks the extender to create the group's ComputeDomain.
inline constexpr char kComputeDomainAuto[] = "auto";

struct GroupMember {
  std::string group_key;  // "<namespace>/<group>"
  std::string job_spec;
  int rank = 0;
  std::string pod_uid;
  // The group's controller (the Job) uid; empty if the pod has no controller. A new uid
  // under the same group key means the group was deleted and created again.
  std::string owner_uid;
  // The kComputeDomainLabel value ("auto" or a ComputeDomain's name); empty: none.
  std::string compute_domain;
  // The pod's time limit (spec.activeDeadlineSeconds) as the job's expected run, sent as
  // the Reserve's outlook.run_seconds, which the daemon keeps as the allocation's expected
  // end; 0: none.
  double run_seconds = 0;
};

// The pod's group membership; nullopt for pods without a job spec (not ours).
// InvalidArgument, naming the annotation, for a job-spec pod without a group name or
// without a valid rank (a non-negative integer).
absl::StatusOr<std::optional<GroupMember>> ReadGroupMember(const PodInfo& pod);

// The external id topoplaced records for a group: "k8s:<namespace>/<group>".
std::string GroupExternalId(const std::string& group_key);

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_POD_GROUP_H_
