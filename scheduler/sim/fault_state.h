// What is broken at one moment of a simulation, and what follows from it: which hosts can
// run nothing, how much of each link's capacity is left, and the FabricHealth a placement
// engine is built with. Faults overlap freely (each element counts its open faults).
//
// Capacity of a failed link or switch: routing moves its traffic to the parallel paths
// (ECMP, the subnet manager's reroute), which the fluid model approximates by keeping
// every job's bytes where its plan put them and lowering the capacity of the uplinks of
// the switches that lost cables: a link between a lower switch s and an upper switch u
// keeps min(live uplink cables of s / all of them, live downlink cables of u / all of
// them) of its capacity, times the share a degradation leaves it. Links to and from a
// failed switch are dead; a switch that lost every uplink keeps kCutOffShare.
//
//   FaultState state(fabric);
//   state.Begin(event);
//   if (state.host_down(h)) ...
//   double share = state.capacity_share(link);
//
// Not thread-safe.
#ifndef TOPOPLACE_SCHEDULER_SIM_FAULT_STATE_H_
#define TOPOPLACE_SCHEDULER_SIM_FAULT_STATE_H_

#include <cstdint>
#include <vector>

#include "scheduler/sim/faults.h"
#include "scheduler/state/health.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// What a switch that lost every uplink keeps: its hosts can still talk below it; what
// climbs crawls (a partitioned switch, which the presets never produce alone).
inline constexpr double kCutOffShare = 0.01;

class FaultState {
 public:
  // Nothing broken. `fabric` must outlive the state.
  explicit FaultState(const Fabric& fabric);

  void Begin(const FaultEvent& event) { Count(event, +1); }
  void End(const FaultEvent& event) { Count(event, -1); }

  // Whether an event cuts hosts off: a host failure, a failed NIC cable or a failed leaf.
  // Such faults are every scheduler's to see (the job on the host fails, the node is
  // drained); the rest only a scheduler watching the links sees.
  bool CutsOffHosts(const FaultEvent& event) const;
  // The hosts a failure of `element` takes out (the host, the host of a NIC cable, every
  // host cabled to a leaf); empty for other elements.
  std::vector<HostId> HostsCutOff(const FaultElement& element) const;
  // The links a failure of `element` takes down: the link, or every link of the switch.
  std::vector<LinkId> LinksDown(const FaultElement& element) const;

  // A host that cannot run a job now.
  bool host_down(HostId host) const { return hosts_down_[host] > 0; }
  // The share of link `link`'s capacity left (1 when nothing touches it).
  double capacity_share(LinkId link) const { return share_[link]; }
  // Links whose capacity_share changed at the last Begin or End.
  const std::vector<LinkId>& changed_links() const { return changed_; }

  // The health a placement engine sees: hosts that are down always; with `network`, also
  // failed switches and links (down) and degraded links.
  FabricHealth Health(bool network) const;
  // Open faults of any kind.
  bool empty() const { return open_ == 0; }

 private:
  void Count(const FaultEvent& event, int delta);
  void Recompute();

  const Fabric* fabric_;
  std::vector<int32_t> link_failed_;    // open failures per link
  std::vector<int32_t> switch_failed_;  // per switch
  std::vector<int32_t> hosts_down_;     // per host: host, NIC cable and leaf failures
  // Per link: its open degradations' capacities (the worst applies).
  std::vector<std::vector<double>> degraded_;
  // Per link: lower and upper switch of a link between two switch tiers, else -1.
  std::vector<SwitchId> lower_, upper_;
  std::vector<double> share_;
  std::vector<LinkId> changed_;
  int64_t open_ = 0;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_FAULT_STATE_H_
