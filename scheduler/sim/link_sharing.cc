#include "scheduler/sim/link_sharing.h"

#include <algorithm>

namespace topoplace::sched::sim {

LinkSharing::LinkSharing(std::vector<double> capacity)
    : resources_(capacity.size()),
      users_(capacity.size()),
      binding_(capacity.size()),
      walked_(capacity.size()),
      frozen_load_(capacity.size()),
      rising_rate_(capacity.size()),
      rising_users_(capacity.size()),
      version_(capacity.size()) {
  for (size_t r = 0; r < capacity.size(); ++r) {
    resources_[r].nominal = resources_[r].capacity = capacity[r];
  }
}

bool LinkSharing::AddUser(int32_t resource, Use use, bool& again) {
  Resource& res = resources_[static_cast<size_t>(resource)];
  if (res.solo.slot == kNoUser) {
    res.solo = use;
    return false;
  }
  std::vector<Use>& users = users_[static_cast<size_t>(resource)];
  // A job's entries come in one after another, so an earlier one of it is the last user.
  if (res.solo.slot >= 0) {
    again = again || res.solo.slot == use.slot;
    users.push_back(res.solo);
    res.solo = Use{kManyUsers, -1};
  } else {
    again = again || users.back().slot == use.slot;
  }
  users.push_back(use);
  return true;
}

bool LinkSharing::RemoveUser(int32_t resource, int32_t slot) {
  Resource& res = resources_[static_cast<size_t>(resource)];
  if (res.solo.slot != kManyUsers) {
    // The job named it twice and its first entry left another job the only user.
    if (res.solo.slot != slot && res.solo.slot != kNoUser) return true;
    res.solo = Use{};
    res.full_speed = 0;
    return false;
  }
  std::vector<Use>& users = users_[static_cast<size_t>(resource)];
  std::erase_if(users, [slot](const Use& use) { return use.slot == slot; });
  if (users.size() <= 1) {
    res.solo = users.empty() ? Use{} : users.front();
    users.clear();
  }
  return true;
}

size_t LinkSharing::UserCount(int32_t resource) const {
  const int32_t solo = resources_[static_cast<size_t>(resource)].solo.slot;
  return solo == kManyUsers ? users_[static_cast<size_t>(resource)].size() : solo >= 0 ? 1 : 0;
}

void LinkSharing::SetShare(int32_t resource, double share) {
  Resource& res = resources_[static_cast<size_t>(resource)];
  res.capacity = res.nominal * share;
  Classify(resource, nullptr);
  ForEachUser(resource,
              [this](const Use& use) { FindTight(jobs_[static_cast<size_t>(use.slot)]); });
}

void LinkSharing::Classify(int32_t resource, const Use* added) {
  const size_t r = static_cast<size_t>(resource);
  const size_t count = UserCount(resource);
  // One user or none: never shared, and nothing to undo unless it was.
  if (count < 2 && !binding_[r]) return;
  const Resource& res = resources_[r];
  const bool binding = count >= 2 && res.full_speed >= kSlack * res.capacity;
  if (binding != binding_[r]) {
    binding_[r] = binding;
    ForEachUser(resource,
                [this, binding](const Use& use) { binding ? MakeShared(use) : MakeOwn(use); });
  } else if (binding && added != nullptr) {
    MakeShared(*added);
  }
}

void LinkSharing::Set(JobKey job, std::vector<ResourceBytes> demand) {
  Remove(job);
  std::erase_if(demand, [](const ResourceBytes& d) { return !(d.bytes > 0); });
  int32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<int32_t>(jobs_.size());
    jobs_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Job& j = jobs_[static_cast<size_t>(slot)];
  double slowest = 0;
  for (const ResourceBytes& d : demand) {
    slowest = std::max(slowest, d.bytes / resources_[static_cast<size_t>(d.resource)].nominal);
  }
  j.key = job;
  j.demand = std::move(demand);
  j.alone_rate = slowest > 0 ? 1 / slowest : 0;
  j.shared.clear();
  j.where.assign(j.demand.size(), -1);
  j.repeats = false;
  j.tight.clear();
  std::vector<double> fill;
  std::vector<int32_t> joined;  // entries on resources that have other users now
  const int32_t entries = static_cast<int32_t>(j.demand.size());
  for (int32_t e = 0; e < entries; ++e) {
    const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
    if (AddUser(d.resource, {slot, e}, j.repeats)) joined.push_back(e);
    resources_[static_cast<size_t>(d.resource)].full_speed += j.alone_rate * d.bytes;
    Tighten(j, e, fill);
  }
  SortTight(j, fill);
  // A resource with one user is never shared: only those joined can be.
  for (int32_t e : joined) {
    const Use added{slot, e};
    Classify(jobs_[static_cast<size_t>(slot)].demand[static_cast<size_t>(e)].resource, &added);
  }
  slot_[job] = slot;
}

void LinkSharing::Remove(JobKey job) {
  auto it = slot_.find(job);
  if (it == slot_.end()) return;
  const int32_t slot = it->second;
  Job& j = jobs_[static_cast<size_t>(slot)];
  std::vector<int32_t> left;  // resources that had other users too
  for (const ResourceBytes& d : j.demand) {
    if (!RemoveUser(d.resource, slot)) continue;
    double& full_speed = resources_[static_cast<size_t>(d.resource)].full_speed;
    full_speed = UserCount(d.resource) == 0 ? 0 : full_speed - j.alone_rate * d.bytes;
    left.push_back(d.resource);
  }
  // A resource it had alone was never shared: only those it left can change.
  for (int32_t resource : left) Classify(resource, nullptr);
  j = Job{};
  free_slots_.push_back(slot);
  slot_.erase(it);
}

double LinkSharing::OwnFill(const Job& j, int32_t e) const {
  // As Fill computes it for a resource whose only user is `j`: nothing frozen on it, and
  // the rate summed from zero.
  const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
  return std::max(0.0, resources_[static_cast<size_t>(d.resource)].capacity - 0.0) /
         (0.0 + j.alone_rate * d.bytes);
}

void LinkSharing::FindTight(Job& j) {
  std::vector<double> fill;
  j.tight.clear();
  for (int32_t e = 0; e < static_cast<int32_t>(j.demand.size()); ++e) Tighten(j, e, fill);
  SortTight(j, fill);
}

void LinkSharing::Tighten(Job& j, int32_t e, std::vector<double>& fill) const {
  // Fill takes a job's first own entry only where kFull x its level is at most 1 +
  // kMargin, and OwnFullAt stops at the first past that: the others are never looked at.
  const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
  // Capacity above twice the rate: the level is at least 2 (division rounds monotonely).
  if (resources_[static_cast<size_t>(d.resource)].capacity > 2 * (j.alone_rate * d.bytes)) return;
  const double level = OwnFill(j, e);
  if (kFull * level > 1 + kMargin) return;
  j.tight.push_back(e);
  fill.push_back(level);
}

void LinkSharing::SortTight(Job& j, const std::vector<double>& fill) {
  std::vector<int32_t> order(j.tight.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&fill](int32_t a, int32_t b) { return fill[a] < fill[b]; });
  std::vector<int32_t> sorted(order.size());
  j.rank.assign(j.demand.size(), -1);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    sorted[pos] = j.tight[static_cast<size_t>(order[pos])];
    j.rank[static_cast<size_t>(sorted[pos])] = static_cast<int32_t>(pos);
  }
  j.tight = std::move(sorted);
  j.own_head = 0;
  while (j.own_head < j.tight.size() && j.where[j.tight[j.own_head]] != -1) ++j.own_head;
}

void LinkSharing::MakeShared(Use use) {
  Job& j = jobs_[static_cast<size_t>(use.slot)];
  int32_t& where = j.where[static_cast<size_t>(use.entry)];
  if (where != -1) return;
  where = static_cast<int32_t>(j.shared.size());
  j.shared.push_back(use.entry);
  if (j.repeats) InEntryOrder(j);
  while (j.own_head < j.tight.size() && j.where[j.tight[j.own_head]] != -1) ++j.own_head;
}

void LinkSharing::MakeOwn(Use use) {
  Job& j = jobs_[static_cast<size_t>(use.slot)];
  const size_t e = static_cast<size_t>(use.entry);
  const int32_t pos = j.where[e];
  if (pos == -1) return;
  const int32_t last = j.shared.back();
  j.shared[static_cast<size_t>(pos)] = last;
  j.where[static_cast<size_t>(last)] = pos;
  j.shared.pop_back();
  j.where[e] = -1;
  if (j.repeats) InEntryOrder(j);
  if (j.rank[e] >= 0) j.own_head = std::min(j.own_head, static_cast<size_t>(j.rank[e]));
}

void LinkSharing::InEntryOrder(Job& j) {
  j.shared.clear();
  for (size_t e = 0; e < j.where.size(); ++e) {
    if (j.where[e] == -1) continue;
    j.where[e] = static_cast<int32_t>(j.shared.size());
    j.shared.push_back(static_cast<int32_t>(e));
  }
}

int32_t LinkSharing::FirstOwn(const Job& j) const {
  return j.own_head < j.tight.size() ? j.tight[j.own_head] : -1;
}

bool LinkSharing::OwnFullAt(const Job& j, double level) const {
  for (size_t pos = j.own_head; pos < j.tight.size(); ++pos) {
    const int32_t e = j.tight[pos];
    if (j.where[static_cast<size_t>(e)] != -1) continue;
    // In fill order: past this margin (that of Fill) no later entry can be full.
    if (kFull * OwnFill(j, e) > level + kMargin) return false;
    const ResourceBytes& d = j.demand[static_cast<size_t>(e)];
    // Fill's test, with nothing frozen on the resource.
    if (0.0 + level * (0.0 + j.alone_rate * d.bytes) >=
        kFull * resources_[static_cast<size_t>(d.resource)].capacity) {
      return true;
    }
  }
  return false;
}

std::vector<LinkSharing::JobKey> LinkSharing::Users(int32_t resource) const {
  std::vector<JobKey> keys;
  ForEachUser(resource,
              [&](const Use& use) { keys.push_back(jobs_[static_cast<size_t>(use.slot)].key); });
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

double LinkSharing::AloneSeconds(JobKey job) const {
  auto it = slot_.find(job);
  if (it == slot_.end()) return 0;
  const Job& j = jobs_[static_cast<size_t>(it->second)];
  return j.alone_rate == 0 ? 0 : 1 / j.alone_rate;
}

std::vector<LinkSharing::JobKey> LinkSharing::Neighbours(JobKey job) const {
  std::vector<JobKey> near;
  auto it = slot_.find(job);
  if (it == slot_.end()) return near;
  const Job& j = jobs_[static_cast<size_t>(it->second)];
  for (int32_t e : j.shared) {
    for (const Use& use : users_[static_cast<size_t>(j.demand[static_cast<size_t>(e)].resource)]) {
      if (use.slot != it->second) near.push_back(jobs_[static_cast<size_t>(use.slot)].key);
    }
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  return near;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::Fractions() const {
  absl::flat_hash_map<JobKey, double> fraction;
  std::vector<int32_t> rising;
  for (size_t slot = 0; slot < jobs_.size(); ++slot) {
    const Job& j = jobs_[slot];
    if (j.key < 0) continue;
    if (j.alone_rate == 0) {
      fraction[j.key] = 1;
    } else {
      rising.push_back(static_cast<int32_t>(slot));
    }
  }
  Fill(std::move(rising), fraction);
  return fraction;
}

absl::flat_hash_map<LinkSharing::JobKey, double> LinkSharing::FractionsAround(
    const std::vector<JobKey>& jobs) const {
  absl::flat_hash_map<JobKey, double> fraction;
  // Breadth-first over job -> resource -> job, each resource walked once.
  std::vector<int32_t> frontier, seen, group, walked;
  auto visit = [&](int32_t slot) {
    const Job& j = jobs_[static_cast<size_t>(slot)];
    if (j.seen) return;
    j.seen = true;
    seen.push_back(slot);
    frontier.push_back(slot);
  };
  for (JobKey job : jobs) {
    auto it = slot_.find(job);
    if (it != slot_.end()) visit(it->second);
  }
  while (!frontier.empty()) {
    const int32_t slot = frontier.back();
    frontier.pop_back();
    const Job& j = jobs_[static_cast<size_t>(slot)];
    if (j.alone_rate == 0) {
      fraction[j.key] = 1;
      continue;
    }
    group.push_back(slot);
    for (int32_t e : j.shared) {
      const int32_t resource = j.demand[static_cast<size_t>(e)].resource;
      const size_t r = static_cast<size_t>(resource);
      if (walked_[r]) continue;
      walked_[r] = true;
      walked.push_back(resource);
      for (const Use& use : users_[r]) visit(use.slot);
    }
  }
  for (int32_t r : walked) walked_[static_cast<size_t>(r)] = false;
  for (int32_t slot : seen) jobs_[static_cast<size_t>(slot)].seen = false;
  Fill(std::move(group), fraction);
  return fraction;
}

}  // namespace topoplace::sched::sim
