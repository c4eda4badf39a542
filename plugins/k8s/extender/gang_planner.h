// Gang planning for the scheduler extender: the first pod of a group that reaches the
// filter makes topoplaced plan and reserve the whole group; every pod of the group is then
// steered to the node its rank was planned on. kube-scheduler sees one pod at a time, so
// the plan lives here between the pods' filter calls.
//
//   GangPlanner planner(std::move(backend), options);
//   FilterVerdict v = planner.Filter(member, candidate_node_names);
//   std::vector<HostScore> s = planner.Prioritize(member, candidate_node_names);
//   VictimsByNode v = planner.Preempt(member, scheduler_candidates);  // the preempt verb
//   planner.Tick();  // about once a second: retries commits, forgets finished groups
//
// Lifecycle of a group (decisions, see plugins/k8s/README.md):
// - reserve at the first pod, with `reservation_ttl`; commit as "k8s:<ns>/<group>" once
//   every rank has been steered to its node (filter passed it there);
// - a retried pod (same or new pod of the same rank) is steered to the same node;
// - while pods of a pending group keep reaching the filter (the scheduler retries waiting
//   pods every few seconds), Tick renews its reservation when less than half the TTL is
//   left; a group deleted before all its ranks were steered stops calling, so its
//   reservation runs out and the daemon reclaims it; the planner then forgets it;
// - the same group name with a new controller uid (the Job was recreated) releases the old
//   allocation and plans again;
// - planned nodes that are not among the candidates: if no rank has been steered yet the
//   reservation is released and the group planned again without the missing nodes (at
//   most `max_replans` times per call); once a rank is steered, a pod whose node is
//   missing fails on every node (resolvable: FailedNodes) and waits for its node;
// - preemption (the preempt verb, called when no node can take a pod of the group): the
//   group's first call asks topoplaced which lower-priority allocations to stop so the
//   group fits its tier, releases them, reserves the group on the freed hosts and pins
//   that plan (a pinned group is never replanned for missing nodes: they are missing
//   because the victims are still leaving). Each rank's call keeps only its own planned
//   node with the scheduler's victims there (kube-scheduler evicts on one node per pod).
//   Victim groups the planner holds are forgotten;
// - topoplaced unreachable: pods of groups already planned are still steered (the plan is
//   cached); a new group gets `error`, so a non-ignorable extender retries the pod later.
//
// Thread-safe: one mutex over the groups, never held across a call to topoplaced, so a
// daemon that hangs delays only the group being planned (its other pods wait for that
// plan); pods of groups already planned are steered meanwhile.
#ifndef TOPOPLACE_PLUGINS_K8S_EXTENDER_GANG_PLANNER_H_
#define TOPOPLACE_PLUGINS_K8S_EXTENDER_GANG_PLANNER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "plugins/common/node_name_map.h"
#include "plugins/k8s/extender/extender_wire.h"
#include "plugins/k8s/extender/placement_backend.h"
#include "plugins/k8s/extender/pod_group.h"

namespace topoplace::k8s {

struct PlannerOptions {
  // How long a group's GPUs stay reserved before all its ranks reach the filter.
  absl::Duration reservation_ttl = absl::Minutes(5);
  // Replans per filter call when planned nodes are not among the candidates.
  int max_replans = 2;
  // Fabric host -> Kubernetes node name (identity when empty). The same file format as
  // the Slurm adapter's node map.
  plugins::NodeNameMap node_names;
  // Committed groups not seen for this long are forgotten (a later pod of the group finds
  // the plan again through topoplaced).
  absl::Duration forget_committed_after = absl::Minutes(10);
};

// Scores of the mild preference for pods without a job spec.
inline constexpr int kUnrelatedFreeScore = 1;     // nodes no pending group waits for
inline constexpr int kUnrelatedPlannedScore = 0;  // nodes planned for a pending group rank

// What the planner holds for one group (a copy, for tests and logs).
struct GroupSnapshot {
  std::string allocation_id;
  std::vector<std::string> nodes;  // Kubernetes node names by rank
  std::vector<bool> steered;       // by rank: filter has sent that rank to its node
  bool committed = false;
};

class GangPlanner {
 public:
  using Clock = std::function<absl::Time()>;

  GangPlanner(PlacementBackendPtr backend, PlannerOptions options, Clock clock = &absl::Now);
  ~GangPlanner() = default;
  GangPlanner(const GangPlanner&) = delete;
  GangPlanner& operator=(const GangPlanner&) = delete;

  // Steers `member` to its planned node among `candidates` (Kubernetes node names).
  // Plans and reserves the group first if needed.
  FilterVerdict Filter(const GroupMember& member, const std::vector<std::string>& candidates);

  // kMaxExtenderScore for the member's planned node, 0 for the others (all 0 when the
  // group has no plan).
  std::vector<HostScore> Prioritize(const GroupMember& member,
                                    const std::vector<std::string>& candidates);

  // The mild score for pods that are not ours: kUnrelatedPlannedScore on nodes planned for
  // a rank of a group that has not reached them yet, kUnrelatedFreeScore elsewhere.
  std::vector<HostScore> ScoreUnrelated(const std::vector<std::string>& candidates);

  // The preempt verb for `member`: `candidates` are kube-scheduler's (node -> the
  // lower-priority pods it would evict there). Returns the member's planned node with the
  // scheduler's victims there, or nothing (no preemption for this pod now: its node needs
  // none or is not a candidate, or no set of lower-priority jobs would make room).
  VictimsByNode Preempt(const GroupMember& member, const VictimsByNode& candidates);

  // Housekeeping, about once a second: retries failed commits, renews reservations of
  // pending groups seen within the last TTL, forgets expired reservations and idle
  // committed groups.
  void Tick();

  // Releases every group's reservation that is not committed (on shutdown).
  void ReleaseUncommitted();

  // The planner's state of `group_key`, if it holds one.
  std::optional<GroupSnapshot> Group(const std::string& group_key) const;

 private:
  struct GroupState {
    std::string owner_uid;
    std::string allocation_id;
    std::vector<std::string> hosts;  // fabric names by rank
    std::vector<std::string> nodes;  // Kubernetes names by rank
    std::vector<bool> steered;
    int steered_count = 0;
    bool committed = false;
    bool commit_in_flight = false;
    bool pinned = false;  // planned by preemption: kept while victims leave its nodes
    absl::Time expires = absl::InfiniteFuture();
    absl::Time last_seen;
  };

  // The member's group if it is planned and still valid. Otherwise nullptr, and a
  // recreated or expired group is dropped, its allocation id added to `to_release`.
  GroupState* ValidGroup(const GroupMember& member, absl::Time now,
                         std::vector<std::string>& to_release) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Another pod of this group may be asking topoplaced for its plan: waits for that plan
  // rather than planning twice. Other groups are not held up.
  void AwaitNotPlanning(const std::string& group_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finds the group's committed plan again (after a restart) or reserves a new one.
  // Calls topoplaced; must be called without mu_.
  absl::StatusOr<GroupState> PlanGroup(const GroupMember& member, const std::string& job_spec,
                                       const std::vector<std::string>& exclude)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The spec to reserve with: the member's, or (once a group has waited max_wait since
  // its first "does not fit" for a hard max_tier) the same with mode=soft, as Slurm's
  // --switches=N@max-time relaxes.
  std::string SpecToReserve(const GroupMember& member, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reserves `member`'s group on the hosts topoplaced chooses (pinned, in the request's
  // hosts field), releasing the lower-priority allocations it names in the same ledger
  // change. `victims` gets their external ids when the Reserve is made; when it fails
  // nothing was released and `victims` stays empty.
  // FailedPrecondition, releasing nothing, when the group fits without stopping anything.
  // Without mu_.
  absl::StatusOr<GroupState> PlanByPreemption(const GroupMember& member,
                                              std::vector<std::string>& victims)
      ABSL_LOCKS_EXCLUDED(mu_);
  GroupState MakeState(const GroupMember& member, GroupPlan plan) const;
  // The allocation to commit if every rank of `group` was steered and no commit is in
  // flight (marking one in flight), else empty.
  std::string TakeCommit(GroupState& group) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Commits `allocation_id` for `key` and records the outcome. Without mu_.
  void Commit(const std::string& key, const std::string& allocation_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Releases allocations, logging failures (the daemon reclaims them anyway). Without mu_.
  void ReleaseAll(const std::vector<std::string>& allocation_ids, absl::string_view why)
      ABSL_LOCKS_EXCLUDED(mu_);

  PlacementBackendPtr backend_;
  PlannerOptions options_;
  Clock clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, GroupState> groups_ ABSL_GUARDED_BY(mu_);
  // Groups whose plan is being asked of topoplaced; their other pods wait for it.
  absl::flat_hash_set<std::string> planning_ ABSL_GUARDED_BY(mu_);
  // Groups that did not fit: when they first did not, and when last asked (to forget
  // groups that went away).
  struct Waiting {
    absl::Time since;
    absl::Time last_seen;
  };
  absl::flat_hash_map<std::string, Waiting> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::k8s

#endif  // TOPOPLACE_PLUGINS_K8S_EXTENDER_GANG_PLANNER_H_
