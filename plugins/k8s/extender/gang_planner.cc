#include "plugins/k8s/extender/gang_planner.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::k8s {
namespace {

std::string WithExclusions(const std::string& spec, const std::vector<std::string>& exclude) {
  if (exclude.empty()) return spec;
  return absl::StrCat(spec, ",exclude=", absl::StrJoin(exclude, ","));
}

using Outcome = FilterVerdict::Outcome;

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

GangPlanner::GangPlanner(PlacementBackendPtr backend, PlannerOptions options, Clock clock)
    : backend_(std::move(backend)), options_(std::move(options)), clock_(std::move(clock)) {}

GangPlanner::GroupState GangPlanner::MakeState(const GroupMember& member, GroupPlan plan) const {
  GroupState state;
  state.owner_uid = member.owner_uid;
  state.allocation_id = std::move(plan.allocation_id);
  state.hosts = std::move(plan.hosts);
  state.nodes.reserve(state.hosts.size());
  for (const std::string& host : state.hosts) {
    state.nodes.push_back(options_.node_names.NodeName(host));
  }
  state.steered.assign(state.hosts.size(), false);
  state.expires = plan.expires;
  state.committed = plan.expires == absl::InfiniteFuture();
  return state;
}

GangPlanner::GroupState* GangPlanner::ValidGroup(const GroupMember& member, absl::Time now,
                                                 std::vector<std::string>& to_release) {
  auto it = groups_.find(member.group_key);
  if (it == groups_.end()) return nullptr;
  GroupState& group = it->second;
  const bool recreated =
      !member.owner_uid.empty() && !group.owner_uid.empty() && member.owner_uid != group.owner_uid;
  const bool expired = !group.committed && now >= group.expires;
  if (!recreated && !expired) {
    if (group.owner_uid.empty()) group.owner_uid = member.owner_uid;
    group.last_seen = now;
    return &group;
  }
  // A recreated group's old allocation is released; an expired reservation is the daemon's
  // to reclaim (Release is idempotent, so say it anyway).
  to_release.push_back(group.allocation_id);
  groups_.erase(it);
  return nullptr;
}

std::string GangPlanner::SpecToReserve(const GroupMember& member, absl::Time now) {
  auto waiting = waiting_.find(member.group_key);
  if (waiting == waiting_.end()) return member.job_spec;
  waiting->second.last_seen = now;
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(member.job_spec);
  if (!job.ok() || !job->max_wait_s || job->mode != sched::ConstraintMode::kHard ||
      job->max_tier == sched::MaxTier::kCluster ||
      now - waiting->second.since < absl::Seconds(*job->max_wait_s)) {
    return member.job_spec;  // a bad spec is refused by topoplaced with its reason
  }
  job->mode = sched::ConstraintMode::kSoft;
  return sched::FormatJobSpec(*job);
}

absl::StatusOr<GangPlanner::GroupState> GangPlanner::PlanGroup(
    const GroupMember& member, const std::string& job_spec,
    const std::vector<std::string>& exclude) {
  const std::string external_id = GroupExternalId(member.group_key);
  if (exclude.empty()) {
    // After an extender restart the group may already be committed.
    absl::StatusOr<GroupPlan> found = backend_->FindCommitted(external_id);
    if (found.ok()) {
      GroupState group = MakeState(member, *std::move(found));
      group.committed = true;
      return group;
    }
    if (found.status().code() != absl::StatusCode::kNotFound) return found.status();
  }
  absl::StatusOr<GroupPlan> plan = backend_->Reserve(
      WithExclusions(job_spec, exclude), options_.reservation_ttl, {}, {}, member.run_seconds);
  if (!plan.ok()) return plan.status();
  return MakeState(member, *std::move(plan));
}

void GangPlanner::ReleaseAll(const std::vector<std::string>& allocation_ids,
                             absl::string_view why) {
  for (const std::string& id : allocation_ids) {
    if (absl::Status s = backend_->Release(id); !s.ok()) {
      std::cerr << "topoplace-k8s-extender: release " << id << " (" << why << "): " << s << "\n";
    }
  }
}

std::string GangPlanner::TakeCommit(GroupState& group) {
  if (group.committed || group.commit_in_flight ||
      group.steered_count < static_cast<int>(group.steered.size())) {
    return "";
  }
  group.commit_in_flight = true;
  return group.allocation_id;
}

void GangPlanner::Commit(const std::string& key, const std::string& allocation_id) {
  const absl::Status s = backend_->Commit(allocation_id, GroupExternalId(key));
  if (!s.ok()) {
    std::cerr << "topoplace-k8s-extender: commit " << allocation_id << " of " << key
              << " (will retry): " << s << "\n";
  }
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(key);
  // The group may have been forgotten or replanned meanwhile: then this commit is stale.
  if (it == groups_.end() || it->second.allocation_id != allocation_id) return;
  it->second.commit_in_flight = false;
  if (s.ok()) {
    it->second.committed = true;
    it->second.expires = absl::InfiniteFuture();
  }
}

void GangPlanner::AwaitNotPlanning(const std::string& group_key) {
  const auto not_planning = [this, &group_key]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return !planning_.contains(group_key);
  };
  mu_.Await(absl::Condition(&not_planning));
}

namespace {

// The verdict for every node when group `group_key` could not be planned: a bad job spec
// is unresolvable, no room now fails (the pod waits), anything else is an error.
void RefuseUnplanned(const std::string& group_key, const absl::Status& s, FilterVerdict& verdict) {
  if (s.code() == absl::StatusCode::kInvalidArgument) {
    verdict.All(Outcome::kUnresolvable,
                absl::StrCat("topoplace: group ", group_key, ": ", s.message()));
  } else if (s.code() == absl::StatusCode::kResourceExhausted) {
    verdict.All(Outcome::kFail,
                absl::StrCat("topoplace: group ", group_key, " does not fit now: ", s.message()));
  } else {
    verdict.error = absl::StrCat("topoplace: cannot plan group ", group_key, ": ", s.ToString());
  }
}

}  // namespace

FilterVerdict GangPlanner::Filter(const GroupMember& member,
                                  const std::vector<std::string>& candidates) {
  FilterVerdict verdict;
  std::vector<std::string> exclude;
  std::vector<std::string> to_release;
  std::string to_commit;
  mu_.Lock();
  for (int attempt = 0;; ++attempt) {
    AwaitNotPlanning(member.group_key);
    const absl::Time now = clock_();
    GroupState* group = ValidGroup(member, now, to_release);
    if (group == nullptr) {
      planning_.insert(member.group_key);
      const std::string spec = SpecToReserve(member, now);
      mu_.Unlock();
      ReleaseAll(to_release, "replaced");
      to_release.clear();
      absl::StatusOr<GroupState> planned = PlanGroup(member, spec, exclude);
      mu_.Lock();
      planning_.erase(member.group_key);
      if (planned.ok()) {
        waiting_.erase(member.group_key);
      } else if (planned.status().code() == absl::StatusCode::kResourceExhausted) {
        waiting_.try_emplace(member.group_key, Waiting{now, now});
      }
      if (!planned.ok()) {
        RefuseUnplanned(member.group_key, planned.status(), verdict);
        break;
      }
      group = &(groups_[member.group_key] = *std::move(planned));
      group->last_seen = clock_();
    }
    const int size = static_cast<int>(group->nodes.size());
    if (member.rank >= size) {
      verdict.All(Outcome::kUnresolvable,
                  absl::StrCat("topoplace: group ", member.group_key, " has ", size,
                               " nodes; rank ", member.rank, " is outside it"));
      break;
    }
    // Before any rank is steered the whole group can still move: kube-scheduler passes
    // the nodes it found feasible (all of them with percentageOfNodesToScore: 100), and the
    // pods of a group are alike, so a planned node missing here would fail its rank too.
    if (!group->committed && !group->pinned && group->steered_count == 0 &&
        attempt < options_.max_replans) {
      const absl::flat_hash_set<std::string> feasible(candidates.begin(), candidates.end());
      std::vector<std::string> missing;
      for (size_t rank = 0; rank < group->hosts.size(); ++rank) {
        if (!feasible.contains(group->nodes[rank])) missing.push_back(group->hosts[rank]);
      }
      if (!missing.empty()) {
        exclude.insert(exclude.end(), missing.begin(), missing.end());
        to_release.push_back(group->allocation_id);
        groups_.erase(member.group_key);
        continue;
      }
    }
    const std::string& planned = group->nodes[member.rank];
    if (Contains(candidates, planned)) {
      verdict.All(Outcome::kUnresolvable,
                  absl::StrCat("topoplace: group ", member.group_key, " rank ", member.rank,
                               " is planned on node ", planned));
      verdict.exceptions[planned] = {};
      if (!group->steered[member.rank]) {
        group->steered[member.rank] = true;
        ++group->steered_count;
      }
      to_commit = TakeCommit(*group);
      break;
    }
    // The planned node cannot take the pod now; the rest of the group is already on its way.
    verdict.All(Outcome::kFail, absl::StrCat("topoplace: group ", member.group_key, " rank ",
                                             member.rank, " waits for its planned node ", planned,
                                             ", which is not among the feasible nodes"));
    break;
  }
  mu_.Unlock();
  ReleaseAll(to_release, "replanned");
  if (!to_commit.empty()) Commit(member.group_key, to_commit);
  return verdict;
}

absl::StatusOr<GangPlanner::GroupState> GangPlanner::PlanByPreemption(
    const GroupMember& member, std::vector<std::string>& victims) {
  absl::StatusOr<PreemptionChoice> choice = backend_->PlanPreemption(member.job_spec);
  if (!choice.ok()) return choice.status();
  if (choice->victims.empty()) {
    return absl::FailedPreconditionError("it fits without stopping anything");
  }
  std::vector<std::string> releasing;
  for (const PreemptionChoice::Victim& v : choice->victims) releasing.push_back(v.allocation_id);
  // A spec naming its own hosts keeps them; otherwise the freed ones go in the request's
  // field (appended to the spec, 460 host names pushed it past the daemon's 4,096 bytes).
  // The victims are released by the same ledger change that holds the group, or not at
  // all: their GPUs are never free without being held again (hardening round four,
  // finding 2).
  const bool own_hosts = absl::StrContains(member.job_spec, "hosts=");
  absl::StatusOr<GroupPlan> plan = backend_->Reserve(
      member.job_spec, options_.reservation_ttl,
      own_hosts ? std::vector<std::string>{} : choice->hosts, releasing, member.run_seconds);
  if (!plan.ok()) return plan.status();
  for (const PreemptionChoice::Victim& v : choice->victims) victims.push_back(v.external_id);
  GroupState group = MakeState(member, *std::move(plan));
  group.pinned = true;
  return group;
}

VictimsByNode GangPlanner::Preempt(const GroupMember& member, const VictimsByNode& candidates) {
  std::vector<std::string> to_release;
  VictimsByNode kept;
  mu_.Lock();
  AwaitNotPlanning(member.group_key);
  const absl::Time now = clock_();
  GroupState* group = ValidGroup(member, now, to_release);
  if (group == nullptr) {
    planning_.insert(member.group_key);
    std::vector<std::string> victims;
    mu_.Unlock();
    ReleaseAll(to_release, "replaced");
    absl::StatusOr<GroupState> planned = PlanByPreemption(member, victims);
    mu_.Lock();
    planning_.erase(member.group_key);
    if (!planned.ok()) {
      // Nothing was released: nobody is evicted, and the victims keep their plans.
      std::cerr << "topoplace-k8s-extender: no preemption for group " << member.group_key << ": "
                << planned.status() << "\n";
      mu_.Unlock();
      return kept;
    }
    // The victims' pods are being evicted; their groups' plans are void.
    for (auto it = groups_.begin(); it != groups_.end();) {
      auto here = it++;
      if (Contains(victims, GroupExternalId(here->first))) groups_.erase(here);
    }
    waiting_.erase(member.group_key);
    group = &(groups_[member.group_key] = *std::move(planned));
    group->last_seen = now;
  }
  if (member.rank < static_cast<int>(group->nodes.size())) {
    const std::string& node = group->nodes[member.rank];
    auto it = candidates.find(node);
    if (it != candidates.end() && !it->second.pod_uids.empty()) kept[node] = it->second;
  }
  mu_.Unlock();
  return kept;
}

std::vector<HostScore> GangPlanner::Prioritize(const GroupMember& member,
                                               const std::vector<std::string>& candidates) {
  std::vector<HostScore> scores;
  scores.reserve(candidates.size());
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(member.group_key);
  const std::string* planned = nullptr;
  if (it != groups_.end() && member.rank < static_cast<int>(it->second.nodes.size())) {
    planned = &it->second.nodes[member.rank];
  }
  for (const std::string& node : candidates) {
    const bool is_planned = planned != nullptr && node == *planned;
    scores.push_back({node, is_planned ? kMaxExtenderScore : 0});
  }
  return scores;
}

std::vector<HostScore> GangPlanner::ScoreUnrelated(const std::vector<std::string>& candidates) {
  absl::flat_hash_set<std::string> waited_for;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, group] : groups_) {
      if (group.committed) continue;
      for (size_t rank = 0; rank < group.nodes.size(); ++rank) {
        if (!group.steered[rank]) waited_for.insert(group.nodes[rank]);
      }
    }
  }
  std::vector<HostScore> scores;
  scores.reserve(candidates.size());
  for (const std::string& node : candidates) {
    scores.push_back(
        {node, waited_for.contains(node) ? kUnrelatedPlannedScore : kUnrelatedFreeScore});
  }
  return scores;
}

void GangPlanner::Tick() {
  std::vector<std::pair<std::string, std::string>> commits;  // (group, allocation)
  std::vector<std::pair<std::string, std::string>> renewals;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = clock_();
    const absl::Duration ttl = options_.reservation_ttl;
    std::vector<std::string> forget;
    for (auto& [key, group] : groups_) {
      if (std::string id = TakeCommit(group); !id.empty()) commits.emplace_back(key, id);
      if (!group.committed && now < group.expires && group.expires - now < ttl / 2 &&
          now - group.last_seen < ttl) {
        renewals.emplace_back(key, group.allocation_id);
      }
      if (!group.committed && now >= group.expires) forget.push_back(key);
      if (group.committed && now - group.last_seen >= options_.forget_committed_after) {
        forget.push_back(key);
      }
    }
    // Expired reservations are already reclaimed by the daemon; committed groups stay
    // committed (only forgotten here).
    for (const std::string& key : forget) groups_.erase(key);
    // A group that stopped asking (deleted) no longer waits.
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      auto here = it++;
      if (now - here->second.last_seen >= options_.forget_committed_after) waiting_.erase(here);
    }
  }
  for (const auto& [key, id] : commits) Commit(key, id);
  for (const auto& [key, id] : renewals) {
    absl::StatusOr<absl::Time> renewed = backend_->Renew(id, options_.reservation_ttl);
    if (!renewed.ok()) {
      std::cerr << "topoplace-k8s-extender: renew " << id << " of " << key << ": "
                << renewed.status() << "\n";
      continue;
    }
    absl::MutexLock lock(&mu_);
    auto it = groups_.find(key);
    if (it != groups_.end() && it->second.allocation_id == id && !it->second.committed) {
      it->second.expires = *renewed;
    }
  }
}

void GangPlanner::ReleaseUncommitted() {
  std::vector<std::string> pending;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = groups_.begin(); it != groups_.end();) {
      if (it->second.committed) {
        ++it;
        continue;
      }
      pending.push_back(it->second.allocation_id);
      groups_.erase(it++);
    }
  }
  ReleaseAll(pending, "shutting down");
}

std::optional<GroupSnapshot> GangPlanner::Group(const std::string& group_key) const {
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(group_key);
  if (it == groups_.end()) return std::nullopt;
  return GroupSnapshot{it->second.allocation_id, it->second.nodes, it->second.steered,
                       it->second.committed};
}

}  // namespace topoplace::k8s
