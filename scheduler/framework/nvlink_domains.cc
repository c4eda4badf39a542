#include "scheduler/framework/nvlink_domains.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace topoplace::sched {

double WholeDomainsFreeIn(const Fabric& fabric, const Inventory& inv, const QueueOutlook& outlook,
                          int needed) {
  std::vector<double> whole;
  whole.reserve(fabric.nvlink_domains().size());
  for (const std::vector<HostId>& domain : fabric.nvlink_domains()) {
    double t = 0;
    for (HostId h : domain) {
      const double free_in = outlook.host_free_in_s[h];
      t = std::max(
          t, free_in == 0 && !inv.eligible(h) ? std::numeric_limits<double>::infinity() : free_in);
    }
    whole.push_back(t);
  }
  if (needed > static_cast<int>(whole.size())) return std::numeric_limits<double>::infinity();
  std::nth_element(whole.begin(), whole.begin() + (needed - 1), whole.end());
  return whole[needed - 1];
}

int LargestNvlinkDomain(const Fabric& fabric) {
  if (fabric.nvlink_domains().size() >= fabric.hosts().size()) return 1;  // one per host
  size_t largest = 1;
  for (const std::vector<HostId>& domain : fabric.nvlink_domains()) {
    largest = std::max(largest, domain.size());
  }
  return static_cast<int>(largest);
}

std::vector<int32_t> NvlinkDomainsOf(const Fabric& fabric, int32_t b) {
  std::vector<int32_t> out;
  const auto& domains = fabric.nvlink_domains();
  for (int32_t d = 0; d < static_cast<int32_t>(domains.size()); ++d) {
    if (fabric.hosts()[domains[d].front()].block == b) out.push_back(d);
  }
  return out;
}

int TpSpanNodes(const JobSpec& job) {
  return job.tp > job.gpus_per_node ? job.tp / job.gpus_per_node : 1;
}

int NvlinkUnitNodes(const JobSpec& job, int largest_domain) {
  const int64_t group_gpus = job.group_gpus();
  const int64_t nodes = std::max<int64_t>(1, group_gpus / job.gpus_per_node);
  return static_cast<int>(std::clamp<int64_t>(nodes, 1, std::max(1, largest_domain)));
}

absl::Status CheckTpFitsADomain(const Fabric& fabric, const JobSpec& job) {
  const int span = TpSpanNodes(job);
  if (span <= 1 || job.tp_across_nodes) return absl::OkStatus();
  const int largest = LargestNvlinkDomain(fabric);
  if (largest >= span) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "job spec field 'tp': tp=", job.tp, " spans ", span, " hosts of ", job.gpus_per_node,
      " GPUs, but the largest NVLink domain of fabric '", fabric.name(), "' has ", largest,
      largest == 1 ? " host (NVLink stays inside each host)" : " hosts",
      ": TP must stay inside one NVLink domain (set tp_across_nodes=1 to allow otherwise)"));
}

void GroupByNvlinkDomain(const Fabric& fabric, std::vector<HostId>& hosts) {
  absl::flat_hash_map<int32_t, int> rank;  // domain -> order of first appearance
  std::vector<std::pair<int, HostId>> keyed;
  keyed.reserve(hosts.size());
  for (HostId h : hosts) {
    const int32_t d = fabric.hosts()[h].nvlink_domain_id;
    keyed.emplace_back(rank.try_emplace(d, static_cast<int>(rank.size())).first->second, h);
  }
  if (rank.size() == hosts.size()) return;  // every host its own domain: nothing moves
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < hosts.size(); ++i) hosts[i] = keyed[i].second;
}

bool GroupsStayInDomains(const Fabric& fabric, std::span<const HostId> node_hosts, int unit) {
  for (size_t k = 0; k < node_hosts.size(); ++k) {
    if (k % unit == 0) continue;
    if (fabric.hosts()[node_hosts[k]].nvlink_domain_id !=
        fabric.hosts()[node_hosts[k - 1]].nvlink_domain_id) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> TpDomainViolation(const Fabric& fabric, const Inventory& inv,
                                             const JobSpec& job,
                                             std::span<const HostId> node_hosts) {
  const int span = TpSpanNodes(job);
  if (span <= 1 || job.tp_across_nodes) return std::nullopt;
  for (size_t first = 0; first + span <= node_hosts.size(); first += span) {
    const int32_t domain = fabric.hosts()[node_hosts[first]].nvlink_domain_id;
    for (size_t k = first + 1; k < first + span; ++k) {
      const int32_t other = fabric.hosts()[node_hosts[k]].nvlink_domain_id;
      if (other == domain) continue;
      const auto describe = [&](int32_t d, HostId h) {
        const int free = inv.nvlink_level() ? inv.nvlink_free_gpus(d) : 0;
        return absl::StrCat("the NVLink domain of ", fabric.hosts()[h].name, " (", free,
                            " free GPUs)");
      };
      return absl::StrCat("TP group ", first / span, " (tp=", job.tp, ") spans ",
                          describe(domain, node_hosts[first]), " and ",
                          describe(other, node_hosts[k]),
                          ": TP must stay inside one NVLink domain");
    }
  }
  return std::nullopt;
}

}  // namespace topoplace::sched
