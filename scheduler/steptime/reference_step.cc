#include "scheduler/steptime/reference_step.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "scheduler/mapping/rank_layout.h"
#include "scheduler/mapping/rank_map.h"
#include "scheduler/state/occupancy.h"
#include "scheduler/traffic/routing.h"
#include "scheduler/traffic/traffic_model.h"

namespace topoplace::sched {

ReferenceSteps::ReferenceSteps(const TierIndex& index, const CommModel& comm, bool rail_local)
    : fabric_(index.fabric()), comm_(comm), rail_local_(rail_local), index_(index) {
  const std::vector<Host>& hosts = fabric_.hosts();
  order_.resize(hosts.size());
  for (size_t h = 0; h < hosts.size(); ++h) order_[h] = static_cast<HostId>(h);
  std::stable_sort(order_.begin(), order_.end(), [&hosts](HostId a, HostId b) {
    const Host& x = hosts[static_cast<size_t>(a)];
    const Host& y = hosts[static_cast<size_t>(b)];
    return std::tie(x.block, x.nvlink_domain_id) < std::tie(y.block, y.nvlink_domain_id);
  });
}

std::optional<TrafficReport> ReferenceSteps::CompactTraffic(const JobSpec& job) const {
  const int64_t nodes = job.nodes();
  std::vector<HostId> chosen;
  for (HostId h : order_) {
    if (static_cast<int64_t>(chosen.size()) == nodes) break;
    if (static_cast<int64_t>(fabric_.hosts()[static_cast<size_t>(h)].gpus.size()) >=
        job.gpus_per_node) {
      chosen.push_back(h);
    }
  }
  if (static_cast<int64_t>(chosen.size()) < nodes) return std::nullopt;
  absl::StatusOr<std::vector<RankSlot>> slots = MapRanks(fabric_, job, chosen, Occupancy(fabric_));
  if (!slots.ok()) return std::nullopt;
  const std::unique_ptr<Attachment[]> attached = index_.Attach(*slots);
  return EvaluateTraffic(RankLayout(job), BuildTrafficModel(job), *slots,
                         {attached.get(), slots->size()},
                         Router(index_, {.rail_local = rail_local_}), job.gpus_per_node);
}

double ReferenceSteps::StepSeconds(const JobSpec& job, const TrafficReport& placed) {
  const std::string key = FormatJobSpec(job);
  if (auto it = by_spec_.find(key); it != by_spec_.end()) return it->second;
  const std::optional<TrafficReport> compact = CompactTraffic(job);
  if (!compact.has_value()) return comm_.ReferenceStepSeconds(job, placed);
  const double seconds = comm_.ReferenceStepSeconds(job, *compact);
  by_spec_.emplace(key, seconds);
  return seconds;
}

}  // namespace topoplace::sched
