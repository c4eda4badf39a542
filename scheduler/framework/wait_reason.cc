#include "scheduler/framework/wait_reason.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace topoplace::sched {
namespace {

// The freest domain of one level: its eligible hosts and its index.
struct Freest {
  int hosts = 0;
  int32_t index = -1;
};

template <typename FreeOf>
Freest FreestOf(size_t domains, FreeOf free_of) {
  Freest best;
  for (size_t d = 0; d < domains; ++d) {
    const int hosts = free_of(static_cast<int32_t>(d));
    if (best.index < 0 || hosts > best.hosts) best = {hosts, static_cast<int32_t>(d)};
  }
  return best;
}

// "1 host", "12 hosts".
std::string Hosts(int64_t n) { return absl::StrCat(n, n == 1 ? " host" : " hosts"); }

// "largest free block: 96 GPUs (12 hosts, block 2; 4 short in one block)".
std::string Level(absl::string_view level, const Freest& freest, const std::string& which,
                  const JobSpec& job, bool bound) {
  std::string text =
      absl::StrCat("largest free ", level, ": ", int64_t{freest.hosts} * job.gpus_per_node,
                   " GPUs (", Hosts(freest.hosts), ", ", which);
  const int64_t nodes = job.nodes();
  if (bound && freest.hosts < nodes) {
    absl::StrAppend(&text, "; ", nodes - freest.hosts, " short in one ", level);
  }
  return absl::StrCat(text, ")");
}

}  // namespace

std::string DescribeRoom(const Inventory& inv, const JobSpec& job, const HealthView* health) {
  const Fabric& fabric = inv.fabric();
  std::vector<std::string> parts;
  if (inv.nvlink_level()) {
    const Freest d =
        FreestOf(fabric.nvlink_domains().size(), [&inv](int32_t i) { return inv.nvlink_free(i); });
    const HostId first = fabric.nvlink_domains()[static_cast<size_t>(d.index)].front();
    const std::string& name = fabric.hosts()[static_cast<size_t>(first)].nvlink_domain;
    parts.push_back(Level("NVLink domain", d,
                          name.empty() ? absl::StrCat("domain ", d.index) : name, job,
                          job.max_tier == MaxTier::kNvlink && job.mode == ConstraintMode::kHard));
  }
  if (!fabric.blocks().empty()) {
    const Freest b =
        FreestOf(fabric.blocks().size(), [&inv](int32_t i) { return inv.block_free(i); });
    parts.push_back(Level("block", b, absl::StrCat("block ", b.index), job,
                          job.max_tier <= MaxTier::kBlock && job.mode == ConstraintMode::kHard));
  }
  if (fabric.pods().size() > 1) {
    const Freest p = FreestOf(fabric.pods().size(), [&inv](int32_t i) { return inv.pod_free(i); });
    parts.push_back(Level("pod", p, absl::StrCat("pod ", p.index), job,
                          job.max_tier == MaxTier::kPod && job.mode == ConstraintMode::kHard));
  }
  std::string cluster = absl::StrCat("cluster: ", int64_t{inv.total_free()} * job.gpus_per_node,
                                     " GPUs (", Hosts(inv.total_free()));
  if (inv.total_free() < job.nodes()) {
    absl::StrAppend(&cluster, "; ", job.nodes() - inv.total_free(), " short");
  }
  parts.push_back(absl::StrCat(cluster, ")"));
  std::string out = absl::StrCat(
      "room for ", job.nodes(), " nodes of ", job.gpus_per_node,
      " GPUs: ", absl::StrJoin(parts, ", "), "; hosts left out: ", inv.busy_hosts(), " busy, ",
      inv.unhealthy_hosts(), " unhealthy, ", inv.excluded_hosts(), " excluded");
  if (health != nullptr) {
    int blocks = 0;
    for (size_t b = 0; b < fabric.blocks().size(); ++b) {
      blocks += health->block_bad_uplinks(static_cast<int32_t>(b)) > 0 ? 1 : 0;
    }
    if (blocks > 0) absl::StrAppend(&out, "; blocks with a down or degraded uplink: ", blocks);
  }
  return out;
}

absl::Status WithWaitReason(const absl::Status& refusal, const Inventory& inv, const JobSpec& job,
                            const HealthView* health) {
  if (!absl::IsResourceExhausted(refusal)) return refusal;
  return absl::ResourceExhaustedError(
      absl::StrCat(refusal.message(), "; ", DescribeRoom(inv, job, health)));
}

}  // namespace topoplace::sched
