#include "scheduler/reserve/expected_ends.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace topoplace::sched {

std::vector<double> ExpectedHostEnds(store::Ledger& ledger, absl::Time now) {
  const Fabric& fabric = ledger.fabric();
  std::vector<double> ends(fabric.hosts().size(), 0.0);
  std::vector<uint8_t> unknown(fabric.hosts().size(), 0);
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    const bool known = a.expected_end != absl::InfiniteFuture();
    const double in_s = known ? std::max(0.0, absl::ToDoubleSeconds(a.expected_end - now)) : 0;
    // An allocation lists its GPUs host by host: look each host up once.
    const std::string* last_name = nullptr;
    std::optional<HostId> h;
    for (const ledger::GpuRef& gpu : a.gpus) {
      if (last_name == nullptr || gpu.host != *last_name) {
        h = fabric.FindHost(gpu.host);
        last_name = &gpu.host;
      }
      if (!h) continue;
      if (!known) unknown[*h] = 1;
      ends[*h] = std::max(ends[*h], in_s);
    }
  });
  for (size_t h = 0; h < ends.size(); ++h) {
    if (unknown[h]) ends[h] = 0;
  }
  return ends;
}

}  // namespace topoplace::sched
