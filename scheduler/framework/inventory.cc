#include "scheduler/framework/inventory.h"

#include "absl/strings/str_cat.h"

namespace topoplace::sched {

absl::StatusOr<Inventory> Inventory::Build(const Fabric& fabric, const Occupancy& occupancy,
                                           const HealthView& health, const JobSpec& job) {
  Inventory inv;
  inv.fabric_ = &fabric;
  inv.occupancy_ = &occupancy;
  const size_t num_hosts = fabric.hosts().size();
  // `hosts` names the only eligible hosts (every other one counts as excluded); `exclude`
  // takes hosts out.
  inv.eligible_.assign(num_hosts, job.hosts.empty() ? 1 : 0);
  const auto mark = [&](const char* field, const std::vector<std::string>& names,
                        uint8_t value) -> absl::Status {
    for (const std::string& name : names) {
      const std::optional<HostId> h = fabric.FindHost(name);
      if (!h) {
        return absl::InvalidArgumentError(absl::StrCat("job spec field '", field,
                                                       "': expected a host of fabric '",
                                                       fabric.name(), "', got '", name, "'"));
      }
      inv.eligible_[*h] = value;
    }
    return absl::OkStatus();
  };
  if (absl::Status s = mark("hosts", job.hosts, 1); !s.ok()) return s;
  if (absl::Status s = mark("exclude", job.exclude, 0); !s.ok()) return s;
  size_t widest = 0;
  for (const Host& host : fabric.hosts()) widest = std::max(widest, host.gpus.size());
  if (widest < static_cast<size_t>(job.gpus_per_node)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job spec field 'gpus_per_node': expected at most ", widest,
        " (the most GPUs any host of '", fabric.name(), "' has), got ", job.gpus_per_node));
  }
  inv.block_free_.assign(fabric.blocks().size(), 0);
  inv.pod_free_.assign(fabric.pods().size(), 0);
  inv.block_free_gpus_.assign(fabric.blocks().size(), 0);
  inv.block_total_gpus_.assign(fabric.blocks().size(), 0);
  for (HostId h = 0; h < static_cast<HostId>(num_hosts); ++h) {
    const Host& host = fabric.hosts()[h];
    if (host.block >= 0) {
      inv.block_free_gpus_[host.block] += occupancy.free_gpus(h);
      inv.block_total_gpus_[host.block] += static_cast<int>(host.gpus.size());
    }
    if (!inv.eligible_[h]) {
      ++inv.excluded_;
      continue;
    }
    if (!health.host_usable(h)) {
      ++inv.unhealthy_;
      inv.eligible_[h] = 0;
      continue;
    }
    if (occupancy.free_gpus(h) < job.gpus_per_node) {
      ++inv.busy_;
      inv.eligible_[h] = 0;
      continue;
    }
    // A host outside any block (uncabled) cannot be reasoned about by domain.
    if (host.block < 0) {
      inv.eligible_[h] = 0;
      continue;
    }
    ++inv.block_free_[host.block];
    if (host.pod >= 0) ++inv.pod_free_[host.pod];
    ++inv.total_free_;
  }
  return inv;
}

int Inventory::TakeHosts(int32_t block, int count, std::vector<uint8_t>& taken,
                         std::vector<HostId>& out) const {
  int got = 0;
  for (HostId h : fabric_->blocks()[block].hosts) {
    if (got == count) break;
    if (!eligible_[h] || taken[h]) continue;
    taken[h] = 1;
    out.push_back(h);
    ++got;
  }
  return got;
}

}  // namespace topoplace::sched
