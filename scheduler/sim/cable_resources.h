// The resources link sharing (link_sharing.h) divides: two per cable of every link, one
// upwards and one downwards (cables are full duplex), each at the cable's speed in bytes
// per second; and a plan's link loads as demands on them.
//
//   CableResources cables(fabric);
//   LinkSharing sharing(cables.capacity());
//   sharing.Set(job, cables.Demand(plan.links));
#ifndef TOPOPLACE_SCHEDULER_SIM_CABLE_RESOURCES_H_
#define TOPOPLACE_SCHEDULER_SIM_CABLE_RESOURCES_H_

#include <cstdint>
#include <vector>

#include "scheduler/sim/link_sharing.h"
#include "scheduler/traffic/link_loads.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

class CableResources {
 public:
  explicit CableResources(const Fabric& fabric);

  // Per resource, bytes per second: first(l) + 2c is cable c of link l upwards, + 1
  // downwards. A link without a speed gets 1e-9 Gb/s (it carries nearly nothing).
  const std::vector<double>& capacity() const { return capacity_; }
  // The resources of link `l` are [first(l), end(l)).
  int32_t first(LinkId l) const { return first_[l]; }
  int32_t end(LinkId l) const { return first_[l + 1]; }

  // The per-cable demand of `loads`: a load on one cable stays there, a fluid one splits
  // evenly over the link's cables.
  std::vector<ResourceBytes> Demand(const std::vector<LinkLoad>& loads) const;

 private:
  std::vector<double> capacity_;
  std::vector<int32_t> first_;  // per link, and one past the last
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_CABLE_RESOURCES_H_
