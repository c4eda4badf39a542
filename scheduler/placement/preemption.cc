#include "scheduler/placement/preemption.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/framework/domain_select.h"

namespace topoplace::sched {
namespace {

// The domains of one level: each a name and its hosts.
struct Level {
  std::vector<std::string> names;
  std::vector<std::vector<HostId>> hosts;
};

// Levels the job may be kept inside, innermost first: multi-host NVLink domains that can
// hold it, blocks, pods, the cluster, up to what its max_tier allows.
std::vector<Level> LevelsFor(const Fabric& fabric, const JobSpec& job) {
  const DomainLevel allowed =
      job.mode == ConstraintMode::kHard ? MaxLevelFor(job.max_tier, fabric) : DomainLevel::kCluster;
  std::vector<Level> levels;
  Level nvlink;
  for (size_t d = 0; d < fabric.nvlink_domains().size(); ++d) {
    const std::vector<HostId>& hosts = fabric.nvlink_domains()[d];
    if (hosts.size() < 2 || static_cast<int64_t>(hosts.size()) < job.nodes()) continue;
    nvlink.names.push_back(absl::StrCat("NVLink domain ", fabric.hosts()[hosts[0]].nvlink_domain));
    nvlink.hosts.push_back(hosts);
  }
  if (!nvlink.hosts.empty()) levels.push_back(std::move(nvlink));
  Level blocks;
  for (size_t b = 0; b < fabric.blocks().size(); ++b) {
    blocks.names.push_back(absl::StrCat("block ", b));
    blocks.hosts.push_back(fabric.blocks()[b].hosts);
  }
  levels.push_back(std::move(blocks));
  if (allowed == DomainLevel::kBlock) return levels;
  if (fabric.pods().size() > 1) {
    Level pods;
    for (size_t p = 0; p < fabric.pods().size(); ++p) {
      pods.names.push_back(absl::StrCat("pod ", p));
      pods.hosts.emplace_back();
      for (int32_t b : fabric.pods()[p].blocks) {
        const std::vector<HostId>& hosts = fabric.blocks()[b].hosts;
        pods.hosts.back().insert(pods.hosts.back().end(), hosts.begin(), hosts.end());
      }
    }
    levels.push_back(std::move(pods));
  }
  if (allowed == DomainLevel::kCluster) {
    Level cluster;
    cluster.names.push_back("the cluster");
    cluster.hosts.emplace_back(fabric.hosts().size());
    std::iota(cluster.hosts.back().begin(), cluster.hosts.back().end(), 0);
    levels.push_back(std::move(cluster));
  }
  return levels;
}

// GPUs per host of each running job.
using HostGpus = absl::flat_hash_map<HostId, int>;

std::vector<HostGpus> GpusByHost(const Fabric& fabric, std::span<const RunningJob> running) {
  std::vector<HostGpus> out(running.size());
  for (size_t j = 0; j < running.size(); ++j) {
    for (GpuId g : running[j].gpus) ++out[j][fabric.gpus()[g].host];
  }
  return out;
}

// Hosts of `hosts` with at least `need` free GPUs once `freed` (per host) are released.
int UsableHosts(const Occupancy& occupancy, const std::vector<HostId>& hosts, const HostGpus& freed,
                int need) {
  int usable = 0;
  for (HostId h : hosts) {
    auto it = freed.find(h);
    usable += occupancy.free_gpus(h) + (it == freed.end() ? 0 : it->second) >= need;
  }
  return usable;
}

// One domain's greedy choice: victims (indices into running) and its cost.
struct Choice {
  std::vector<size_t> victims;
  absl::flat_hash_map<size_t, int> gpus_here;  // per victim, the GPUs it frees in the domain
  double lost = 0;
  int64_t top_priority = 0;
  auto Key() const { return std::make_tuple(lost, victims.size(), top_priority); }
};

std::optional<Choice> ChooseInDomain(const std::vector<HostId>& hosts, const JobSpec& job,
                                     const Occupancy& occupancy,
                                     std::span<const RunningJob> running,
                                     const std::vector<HostGpus>& by_host) {
  const int need = job.gpus_per_node;
  const int nodes = static_cast<int>(job.nodes());
  const absl::flat_hash_set<HostId> in_domain(hosts.begin(), hosts.end());
  // Lower-priority jobs with GPUs here, and how many GPUs they free here.
  std::vector<std::pair<size_t, int>> candidates;
  for (size_t j = 0; j < running.size(); ++j) {
    if (running[j].priority >= job.priority) continue;
    int here = 0;
    for (const auto& [h, n] : by_host[j]) here += in_domain.contains(h) ? n : 0;
    if (here > 0) candidates.emplace_back(j, here);
  }
  std::sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
    const RunningJob& x = running[a.first];
    const RunningJob& y = running[b.first];
    return std::make_tuple(x.lost_gpu_hours.value_or(0), x.priority, -a.second, x.id) <
           std::make_tuple(y.lost_gpu_hours.value_or(0), y.priority, -b.second, y.id);
  });
  HostGpus freed;
  const auto release = [&](size_t j, int sign) {
    for (const auto& [h, n] : by_host[j]) freed[h] += sign * n;
  };
  Choice choice;
  for (const auto& [j, here] : candidates) {
    if (UsableHosts(occupancy, hosts, freed, need) >= nodes) break;
    release(j, +1);
    choice.victims.push_back(j);
    choice.gpus_here[j] = here;
  }
  if (UsableHosts(occupancy, hosts, freed, need) < nodes) return std::nullopt;
  // Drop victims the others made unnecessary, the most expensive first.
  for (size_t i = choice.victims.size(); i-- > 0;) {
    release(choice.victims[i], -1);
    if (UsableHosts(occupancy, hosts, freed, need) >= nodes) {
      choice.victims.erase(choice.victims.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      release(choice.victims[i], +1);
    }
  }
  for (size_t j : choice.victims) {
    choice.lost += running[j].lost_gpu_hours.value_or(0);
    choice.top_priority = std::max(choice.top_priority, running[j].priority);
  }
  return choice;
}

std::string VictimReason(const RunningJob& victim, const JobSpec& job, const std::string& domain,
                         int gpus_there) {
  std::string reason = absl::StrCat("priority ", victim.priority, " < ", job.priority, "; frees ",
                                    gpus_there, " GPUs in ", domain);
  if (victim.lost_gpu_hours) {
    absl::StrAppend(&reason, absl::StrFormat("; loses %.2f GPU-hours since its last checkpoint",
                                             *victim.lost_gpu_hours));
  } else {
    absl::StrAppend(&reason, "; work since its last checkpoint unknown");
  }
  return reason;
}

}  // namespace

absl::StatusOr<PreemptionPlan> PlanPreemption(const PlacementEngine& engine,
                                              const PlacementRequest& request,
                                              const Occupancy& occupancy,
                                              std::span<const RunningJob> running) {
  const Fabric& fabric = engine.fabric();
  const JobSpec& job = request.job;
  absl::StatusOr<PlacementPlan> as_is = engine.Place(request, occupancy);
  if (as_is.ok() && !as_is->relaxed) return PreemptionPlan{{}, *std::move(as_is), "", 0};
  if (!as_is.ok() && !absl::IsResourceExhausted(as_is.status())) return as_is.status();

  const std::vector<HostGpus> by_host = GpusByHost(fabric, running);
  for (const Level& level : LevelsFor(fabric, job)) {
    std::vector<std::pair<Choice, size_t>> choices;
    for (size_t d = 0; d < level.hosts.size(); ++d) {
      if (static_cast<int64_t>(level.hosts[d].size()) < job.nodes()) continue;
      if (std::optional<Choice> c =
              ChooseInDomain(level.hosts[d], job, occupancy, running, by_host)) {
        choices.emplace_back(*std::move(c), d);
      }
    }
    std::stable_sort(choices.begin(), choices.end(),
                     [](const auto& a, const auto& b) { return a.first.Key() < b.first.Key(); });
    for (const auto& [choice, d] : choices) {
      Occupancy freed = occupancy;
      for (size_t j : choice.victims) {
        for (GpuId g : running[j].gpus) freed.Set(g, false);
      }
      PlacementRequest inside = request;
      if (level.hosts[d].size() < fabric.hosts().size()) {
        // The domain's hosts, and of those only the ones the job itself names, if any.
        const absl::flat_hash_set<std::string> named(job.hosts.begin(), job.hosts.end());
        inside.job.hosts.clear();
        for (HostId h : level.hosts[d]) {
          const std::string& name = fabric.hosts()[h].name;
          if (named.empty() || named.contains(name)) inside.job.hosts.push_back(name);
        }
        if (inside.job.hosts.empty()) continue;
      }
      absl::StatusOr<PlacementPlan> plan = engine.Place(inside, freed);
      if (!plan.ok() || plan->relaxed) continue;
      plan->job = job;  // as asked, without the domain's host list
      PreemptionPlan out{{}, *std::move(plan), level.names[d], choice.lost};
      for (size_t j : choice.victims) {
        out.victims.push_back(
            {running[j].id, running[j].priority, running[j].lost_gpu_hours,
             VictimReason(running[j], job, level.names[d], choice.gpus_here.at(j))});
      }
      return out;
    }
  }
  if (as_is.ok()) return PreemptionPlan{{}, *std::move(as_is), "", 0};  // relaxed, as is
  return absl::ResourceExhaustedError(
      absl::StrCat("no preemption makes room: stopping every running job of priority below ",
                   job.priority, " frees no domain the job's max_tier=", MaxTierName(job.max_tier),
                   " allows (", as_is.status().message(), ")"));
}

std::vector<std::string> PriorityOnlyVictims(const Fabric& fabric, const JobSpec& job,
                                             const Occupancy& occupancy,
                                             std::span<const RunningJob> running) {
  std::vector<size_t> order;
  for (size_t j = 0; j < running.size(); ++j) {
    if (running[j].priority < job.priority) order.push_back(j);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return running[a].priority < running[b].priority; });
  std::vector<HostId> all(fabric.hosts().size());
  std::iota(all.begin(), all.end(), 0);
  const std::vector<HostGpus> by_host = GpusByHost(fabric, running);
  HostGpus freed;
  std::vector<std::string> victims;
  for (size_t j : order) {
    if (UsableHosts(occupancy, all, freed, job.gpus_per_node) >= job.nodes()) break;
    for (const auto& [h, n] : by_host[j]) freed[h] += n;
    victims.push_back(running[j].id);
  }
  if (UsableHosts(occupancy, all, freed, job.gpus_per_node) < job.nodes()) return {};
  return victims;
}

}  // namespace topoplace::sched
