// ComputeDomains (NVIDIA's DRA driver for GPUs, resource.nvidia.com/v1beta1) for gangs that
// run as one multi-node NVLink workload. A ComputeDomain makes one IMEX domain of the nodes
// its pods land on; each pod reaches it through a channel claim made from the
// ResourceClaimTemplate the ComputeDomain names (spec.channel.resourceClaimTemplate.name),
// and a channel admits one workload per node, so such a gang takes whole trays inside one
// NVLink domain: ReadGroupMember makes its spec max_tier=nvlink (pod_group.h).
//
// A group opts in with the pod label topoplace.io/compute-domain:
// - "auto": the keeper creates ComputeDomain <group> in the pods' namespace with the channel
//   template <group>-channel (the pods name it: resourceClaims[].resourceClaimTemplateName),
//   numNodes the group's node count, labelled as the extender's and owned by the pods'
//   controller (the Job), so that deleting the Job deletes it;
// - another value: the name of the workload's own ComputeDomain, adopted: nothing is
//   created; a Pass reports it missing, or a numNodes other than 0 that differs from the
//   group's node count.
// This happens before scheduling: kube-scheduler does not send a pod whose channel claim
// does not exist yet to any extender (the claim is made from a template the ComputeDomain's
// controller makes), so the keeper lists the unscheduled labelled pods itself on each Sync
// (the extender's main loop calls it every 2 s with --kube-api). Pods the filter saw are
// noted too, for groups scheduled between two Syncs (pods that wait for no channel claim).
//
//   ComputeDomainKeeper keeper(api);
//   keeper.Note(pod);  // from the filter, any thread
//   TP_ASSIGN_OR_RETURN(ComputeDomainKeeper::Pass pass, keeper.Sync());
//
// Sync has one caller at a time (the main loop); Note is thread-safe.
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_COMPUTE_DOMAINS_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_COMPUTE_DOMAINS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "plugins/k8s/extender/extender_wire.h"
#include "plugins/k8s/extender/kube_api.h"

namespace topoplace::k8s {

inline constexpr char kComputeDomainApi[] = "/apis/resource.nvidia.com/v1beta1";
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByExtender[] = "topoplace-k8s-extender";

// The channel template of the ComputeDomain the keeper creates for `group` ("<group>-channel").
std::string ChannelTemplateName(const std::string& group);

class ComputeDomainKeeper {
 public:
  explicit ComputeDomainKeeper(KubeApi& api) : api_(api) {}

  // What one Sync did; each entry "<namespace>/<name>".
  struct Pass {
    std::vector<std::string> created;
    std::vector<std::string> found;  // existing ones (adopted, or created earlier)
    std::vector<std::string>
        problems;  // a sentence each: a missing or mismatched domain, a bad pod
  };

  // Lists the unscheduled pods labelled topoplace.io/compute-domain and sees that each of
  // their groups' ComputeDomains exists. Unavailable when the API server cannot be reached,
  // Internal naming the call and the server's message when it refuses one (a missing CRD:
  // NotFound on the create, saying to install NVIDIA's DRA driver).
  absl::StatusOr<Pass> Sync();

  // A pod of a labelled group reached the filter: the next Sync sees to its group's
  // ComputeDomain even if the pod is bound by then. At most kMaxNoted pods wait for it.
  void Note(const PodInfo& pod) ABSL_LOCKS_EXCLUDED(mu_);
  static constexpr size_t kMaxNoted = 4096;

 private:
  absl::StatusOr<Pass> SyncWith(const std::vector<PodInfo>& noted);

  KubeApi& api_;
  absl::Mutex mu_;
  std::vector<PodInfo> noted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_COMPUTE_DOMAINS_H_
