#include "scheduler/sim/shared_progress.h"

#include <algorithm>

namespace topoplace::sched::sim {

SharedProgress::SharedProgress(const Fabric& fabric, const CommModel& comm, size_t jobs)
    : comm_(comm), cables_(fabric), sharing_(cables_.capacity()), jobs_(jobs) {}

std::vector<EndMove> SharedProgress::Start(size_t j, const JobSpec& spec, const PlacementPlan& plan,
                                           double reference_s, double work, double end,
                                           double now) {
  if (plan.links.empty()) return {};
  sharing_.Set(static_cast<int64_t>(j), cables_.Demand(plan.links));
  Job& s = jobs_[j];
  s.spec = &spec;
  s.compute_s = comm_.ComputeSeconds(plan.job);
  s.nvlink_s = comm_.NvlinkSeconds(plan.job, plan.traffic);
  s.net_share = CommModel::NetworkShares(plan.traffic);
  s.reference_s = reference_s;
  s.work = work;
  s.remaining = work;
  s.since = now;
  s.end = end;
  s.tracked = true;
  return Rebalance(now, {static_cast<int64_t>(j)});
}

std::vector<EndMove> SharedProgress::Stop(size_t j, double now) {
  if (!jobs_[j].tracked) return {};
  jobs_[j].tracked = false;
  const std::vector<int64_t> near = sharing_.Neighbours(static_cast<int64_t>(j));
  sharing_.Remove(static_cast<int64_t>(j));
  return Rebalance(now, near);
}

std::vector<EndMove> SharedProgress::SetCapacity(const std::vector<LinkId>& links,
                                                 const FaultState& faults, double now) {
  std::vector<int64_t> users;
  for (LinkId l : links) {
    for (int32_t res = cables_.first(l); res < cables_.end(l); ++res) {
      sharing_.SetShare(res, faults.capacity_share(l));
      const std::vector<int64_t>& on = sharing_.Users(res);
      users.insert(users.end(), on.begin(), on.end());
    }
  }
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  return Rebalance(now, users);
}

double SharedProgress::WorkDone(size_t j, double now) const {
  const Job& s = jobs_[j];
  return s.work - std::max(0.0, s.remaining - (now - s.since) * s.rate);
}

std::vector<EndMove> SharedProgress::Rebalance(double now, const std::vector<int64_t>& changed) {
  std::vector<EndMove> moved;
  const absl::flat_hash_map<int64_t, double> fraction = sharing_.FractionsAround(changed);
  for (const auto& [key, share] : fraction) {
    const size_t j = static_cast<size_t>(key);
    Job& s = jobs_[j];
    s.remaining = std::max(0.0, s.remaining - (now - s.since) * s.rate);
    s.since = now;
    const double step = comm_.SharedStepSeconds(*s.spec, s.compute_s, s.nvlink_s, s.net_share,
                                                sharing_.AloneSeconds(key), share);
    // Never faster than the reference placement, as in the per-job model.
    s.rate = s.reference_s > 0 && step > s.reference_s ? s.reference_s / step : 1.0;
    const double from = s.end;
    s.end = now + s.remaining / s.rate;
    moved.push_back({j, from, s.end});
  }
  return moved;
}

}  // namespace topoplace::sched::sim
