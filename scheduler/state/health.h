// Link and switch health as the placement engine sees it: the daemon's health model
// (telemetry/health) fills it from link telemetry; the CLI from --unhealthy; tests by hand.
//
//   FabricHealth health;
//   health.unhealthy_hosts.insert(*fabric->FindHost("b00-n003"));
//   HealthView view(*fabric, health);
//   if (!view.host_usable(h)) ...
#ifndef TOPOPLACE_SCHEDULER_STATE_HEALTH_H_
#define TOPOPLACE_SCHEDULER_STATE_HEALTH_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Raw health input. Links in state kDown/kDegraded on the Fabric count too.
struct FabricHealth {
  absl::flat_hash_set<HostId> unhealthy_hosts;
  absl::flat_hash_set<SwitchId> unhealthy_switches;
  absl::flat_hash_set<LinkId> unhealthy_links;  // treated as down
  absl::flat_hash_set<LinkId> degraded_links;   // usable, but scored down
};

// What placement needs from health, precomputed once per (fabric, health) so that each
// placement is a table lookup. Immutable; thread-safe for readers.
class HealthView {
 public:
  HealthView(const Fabric& fabric, const FabricHealth& health);

  // False when the host is unhealthy, or one of its NICs' cables or leaves is down: a
  // host with a dead rail cannot run a rail-aligned job.
  bool host_usable(HostId host) const { return host_usable_[host] != 0; }
  // Hosts with a degraded NIC cable (usable, scored down).
  bool host_degraded(HostId host) const { return host_degraded_[host] != 0; }
  // Down or degraded links (and down switches) above the leaves of `block`: traffic that
  // leaves the block through them is at risk.
  int block_bad_uplinks(int32_t block) const { return block_bad_uplinks_[block]; }
  // Number of hosts that are not usable.
  int unusable_hosts() const { return unusable_hosts_; }

 private:
  std::vector<uint8_t> host_usable_;
  std::vector<uint8_t> host_degraded_;
  std::vector<int> block_bad_uplinks_;
  int unusable_hosts_ = 0;
};

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_STATE_HEALTH_H_
