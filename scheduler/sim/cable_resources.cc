#include "scheduler/sim/cable_resources.h"

#include <algorithm>

namespace topoplace::sched::sim {

CableResources::CableResources(const Fabric& fabric) {
  const std::vector<Link>& links = fabric.links();
  first_.reserve(links.size() + 1);
  for (const Link& link : links) {
    first_.push_back(static_cast<int32_t>(capacity_.size()));
    capacity_.insert(capacity_.end(), 2 * static_cast<size_t>(std::max(1, link.count)),
                     std::max(link.speed_gbps, 1e-9) * 1e9 / 8);
  }
  first_.push_back(static_cast<int32_t>(capacity_.size()));
}

std::vector<ResourceBytes> CableResources::Demand(const std::vector<LinkLoad>& loads) const {
  std::vector<ResourceBytes> demand;
  demand.reserve(2 * loads.size());
  for (const LinkLoad& load : loads) {
    const int32_t first = first_[load.link];
    const int32_t cables = (first_[load.link + 1] - first) / 2;
    const int32_t from = load.cable >= 0 ? load.cable : 0;
    const int32_t to = load.cable >= 0 ? load.cable + 1 : cables;
    const double split = load.cable >= 0 ? 1.0 : 1.0 / cables;
    for (int32_t c = from; c < to; ++c) {
      demand.push_back({first + 2 * c, load.up_bytes * split});
      demand.push_back({first + 2 * c + 1, load.down_bytes * split});
    }
  }
  return demand;
}

}  // namespace topoplace::sched::sim
