#include "api/server/services/telemetry_path_view.h"

#include <algorithm>
#include <string>

#include "telemetry/health/fabric_health_model.h"

namespace topoplace::server {

using telemetry::LinkVerdict;

LinkState EffectiveState(const Fabric& fabric, LinkId link, const LinkHealthView& view) {
  LinkState state = fabric.links()[link].state;
  if (view.verdict == LinkVerdict::kDown) state = LinkState::kDown;
  if (view.verdict == LinkVerdict::kDegraded && state == LinkState::kUp) {
    state = LinkState::kDegraded;
  }
  return state;
}

void FillLinkHealth(const Fabric& fabric, LinkId link, const LinkHealthView& view,
                    v1::LinkHealth& out) {
  const Link& l = fabric.links()[link];
  out.set_a(fabric.EndpointName(l.a));
  out.set_b(fabric.EndpointName(l.b));
  out.set_name(telemetry::LinkName(fabric, link));
  out.set_state(std::string(LinkStateName(EffectiveState(fabric, link, view))));
  out.set_health(std::string(telemetry::LinkVerdictName(view.verdict)));
  out.set_reason(view.reason);
}

v1::SwitchHealth SwitchHealthOf(const Fabric& fabric, SwitchId s, const HealthMonitor& monitor) {
  v1::SwitchHealth out;
  out.set_name(fabric.switches()[s].name);
  out.set_tier(fabric.switches()[s].tier);
  int links = 0, down = 0, unhealthy = 0;
  const Endpoint self{Endpoint::Kind::kSwitch, s};
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    if (!(fabric.links()[l].a == self) && !(fabric.links()[l].b == self)) continue;
    ++links;
    const LinkVerdict v = monitor.Link(l).verdict;
    down += v == LinkVerdict::kDown ? 1 : 0;
    unhealthy += v != LinkVerdict::kHealthy ? 1 : 0;
  }
  LinkVerdict verdict = LinkVerdict::kHealthy;
  if (unhealthy > 0) verdict = LinkVerdict::kDegraded;
  if (links > 0 && down == links) verdict = LinkVerdict::kDown;
  out.set_health(std::string(telemetry::LinkVerdictName(verdict)));
  return out;
}

std::vector<GpuId> GpusOfAllocation(const Fabric& fabric, const ledger::Allocation& allocation) {
  std::vector<GpuId> gpus;
  for (const ledger::GpuRef& ref : allocation.gpus) {
    if (std::optional<GpuId> g = fabric.FindGpu(ref.host, ref.index)) gpus.push_back(*g);
  }
  return gpus;
}

}  // namespace topoplace::server
