#include "scheduler/framework/inventory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace topoplace::sched {

namespace {

// Sets `eligible` of each host `names` lists (job spec field `field`) to `value`.
absl::Status MarkHosts(const Fabric& fabric, const char* field,
                       const std::vector<std::string>& names, uint8_t value,
                       std::vector<uint8_t>& eligible) {
  for (const std::string& name : names) {
    const std::optional<HostId> h = fabric.FindHost(name);
    if (!h) {
      return absl::InvalidArgumentError(absl::StrCat("job spec field '", field,
                                                     "': expected a host of fabric '",
                                                     fabric.name(), "', got '", name, "'"));
    }
    eligible[*h] = value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Inventory> Inventory::Build(const Fabric& fabric, const Occupancy& occupancy,
                                           const HealthView& health, const JobSpec& job) {
  Inventory inv;
  inv.fabric_ = &fabric;
  inv.occupancy_ = &occupancy;
  const size_t num_hosts = fabric.hosts().size();
  // `hosts` names the only eligible hosts (every other one counts as excluded); `exclude`
  // takes hosts out.
  inv.eligible_.assign(num_hosts, job.hosts.empty() ? 1 : 0);
  TP_RETURN_IF_ERROR(MarkHosts(fabric, "hosts", job.hosts, 1, inv.eligible_));
  TP_RETURN_IF_ERROR(MarkHosts(fabric, "exclude", job.exclude, 0, inv.eligible_));
  // Every host once per placement: read from the packed places, not the Host records.
  const std::vector<Fabric::HostPlace>& places = fabric.host_places();
  int32_t widest = 0;
  for (const Fabric::HostPlace& place : places) widest = std::max(widest, place.gpus);
  if (widest < job.gpus_per_node) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job spec field 'gpus_per_node': expected at most ", widest,
        " (the most GPUs any host of '", fabric.name(), "' has), got ", job.gpus_per_node));
  }
  inv.block_free_.assign(fabric.blocks().size(), 0);
  inv.pod_free_.assign(fabric.pods().size(), 0);
  inv.block_free_gpus_.assign(fabric.blocks().size(), 0);
  inv.block_total_gpus_.assign(fabric.blocks().size(), 0);
  const bool nvlink_level = fabric.nvlink_domains().size() < num_hosts;
  if (nvlink_level) {
    inv.nvlink_free_.assign(fabric.nvlink_domains().size(), 0);
    inv.nvlink_free_gpus_.assign(fabric.nvlink_domains().size(), 0);
    inv.nvlink_total_gpus_.assign(fabric.nvlink_domains().size(), 0);
  }
  for (HostId h = 0; h < static_cast<HostId>(num_hosts); ++h) {
    const Fabric::HostPlace& host = places[h];
    if (nvlink_level && host.nvlink_domain >= 0) {
      inv.nvlink_free_gpus_[host.nvlink_domain] += occupancy.free_gpus(h);
      inv.nvlink_total_gpus_[host.nvlink_domain] += host.gpus;
    }
    if (host.block >= 0) {
      inv.block_free_gpus_[host.block] += occupancy.free_gpus(h);
      inv.block_total_gpus_[host.block] += host.gpus;
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
    if (health.host_degraded(h)) {
      inv.degraded_.resize(num_hosts, 0);
      inv.degraded_[h] = 1;
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
    if (nvlink_level && host.nvlink_domain >= 0) ++inv.nvlink_free_[host.nvlink_domain];
    ++inv.total_free_;
  }
  return inv;
}

int Inventory::TakeFromDomain(int32_t d, int count, std::vector<HostId>& out) const {
  int got = 0;
  for (HostId h : fabric_->nvlink_domains()[d]) {
    if (got == count) break;
    if (!eligible_[h]) continue;
    out.push_back(h);
    ++got;
  }
  return got;
}

Inventory Inventory::RestrictedTo(std::span<const HostId> hosts) const {
  Inventory out = *this;
  std::fill(out.eligible_.begin(), out.eligible_.end(), 0);
  std::fill(out.block_free_.begin(), out.block_free_.end(), 0);
  std::fill(out.pod_free_.begin(), out.pod_free_.end(), 0);
  std::fill(out.nvlink_free_.begin(), out.nvlink_free_.end(), 0);
  out.total_free_ = 0;
  for (HostId h : hosts) {
    if (!eligible_[h] || out.eligible_[h]) continue;
    out.eligible_[h] = 1;
    const Host& host = fabric_->hosts()[h];
    ++out.block_free_[host.block];
    if (host.pod >= 0) ++out.pod_free_[host.pod];
    if (!out.nvlink_free_.empty() && host.nvlink_domain_id >= 0) {
      ++out.nvlink_free_[host.nvlink_domain_id];
    }
    ++out.total_free_;
  }
  return out;
}

int Inventory::TakeHosts(int32_t block, int count, std::vector<uint8_t>& taken,
                         std::vector<HostId>& out, Take order) const {
  return TakeFromBlock(block, count, &taken, out, order);
}

int Inventory::TakeFromUntouchedBlock(int32_t block, int count, std::vector<HostId>& out,
                                      Take order) const {
  return TakeFromBlock(block, count, nullptr, out, order);
}

int Inventory::TakeFromBlock(int32_t block, int count, std::vector<uint8_t>* taken,
                             std::vector<HostId>& out, Take order) const {
  int got = 0;
  // With kHealthyFirst and degraded hosts known: a pass without them, then one with them.
  const bool two_passes = order == Take::kHealthyFirst && !degraded_.empty();
  if (taken == nullptr && !two_passes) {
    // One pass, nothing to skip but ineligible hosts: each host is written to the next
    // place and kept only if eligible, without a branch on it (free hosts are scattered,
    // so the branch would be mispredicted often).
    const std::vector<HostId>& hosts = fabric_->blocks()[block].hosts;
    const size_t start = out.size();
    out.resize(start + std::min(static_cast<size_t>(count), hosts.size()));
    for (size_t i = 0; i < hosts.size() && got < count; ++i) {
      out[start + got] = hosts[i];
      got += eligible_[hosts[i]] != 0 ? 1 : 0;
    }
    out.resize(start + got);
    return got;
  }
  for (int pass = two_passes ? 0 : 1; pass < 2; ++pass) {
    for (HostId h : fabric_->blocks()[block].hosts) {
      if (got == count) break;
      if (!eligible_[h] || (pass == 0 && degraded_[h])) continue;
      if (taken != nullptr) {
        if ((*taken)[h]) continue;
        (*taken)[h] = 1;
      } else if (two_passes && pass == 1 && !degraded_[h]) {
        // Untouched before this call: the second pass runs only once the first took every
        // eligible healthy host, so the healthy ones are all taken already.
        continue;
      }
      out.push_back(h);
      ++got;
    }
  }
  return got;
}

}  // namespace topoplace::sched
