#include "scheduler/policies/topoplace_policy.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "scheduler/policies/domain_select.h"

namespace topoplace::sched {
namespace {

// Single-block candidates considered when the job fits one block: the best fits, so the
// scorers (link health, fragmentation) can break ties between equally tight blocks.
constexpr int kBlockCandidates = 3;
// Pods tried at the pod level, best fit first.
constexpr int kPodCandidates = 2;

// How nodes are grouped into the units that must not be split across blocks.
struct Cut {
  Dim dim;            // the dimension whose groups may cross blocks
  int unit = 1;       // nodes per unit
  std::vector<int> node_order;  // node slots in packing order
  std::string name;
};

// Units = nodes sharing one coordinate of `dim`, so block boundaries cut only `dim`'s
// groups (pipeline stages for pp: the cut crosses PP boundaries; DP columns for dp).
// Needs every node to hold a single coordinate of `dim`.
std::optional<Cut> MakeCut(const PlacementContext& ctx, Dim dim) {
  const RankLayout& layout = ctx.layout;
  const int g = ctx.job.gpus_per_node;
  if (layout.size(dim) <= 1 || layout.stride(dim) % g != 0) return std::nullopt;
  Cut cut{dim, ctx.nodes / layout.size(dim), std::vector<int>(ctx.nodes), ""};
  std::iota(cut.node_order.begin(), cut.node_order.end(), 0);
  std::stable_sort(cut.node_order.begin(), cut.node_order.end(), [&](int a, int b) {
    return layout.Coord(a * g, dim) < layout.Coord(b * g, dim);
  });
  cut.name = absl::StrCat(DimName(dim), "-aligned");
  return cut;
}

Cut PlainCut(const PlacementContext& ctx) {
  Cut cut{Dim::kPp, 1, std::vector<int>(ctx.nodes), "node-packed"};
  std::iota(cut.node_order.begin(), cut.node_order.end(), 0);
  return cut;
}

// Packs the job's units into `blocks` with as few blocks (and pods) as possible.
std::optional<Candidate> Pack(const PlacementContext& ctx, const Domain& domain,
                              const Cut& cut) {
  const Fabric& fabric = ctx.fabric;
  const Inventory& inv = ctx.inventory;
  const int need = ctx.nodes / cut.unit;
  std::vector<int32_t> blocks = BlocksOf(fabric, domain);
  // Choose pods first (at the cluster level of a multi-pod fabric), then blocks within
  // each chosen pod, so that core crossings are as few as the spine crossings.
  std::vector<std::vector<int32_t>> groups;
  if (domain.level == DomainLevel::kCluster && fabric.pods().size() > 1) {
    for (const Pod& pod : fabric.pods()) groups.push_back(pod.blocks);
  } else {
    groups.push_back(blocks);
  }
  std::vector<int> group_units(groups.size(), 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    for (int32_t b : groups[i]) group_units[i] += inv.block_free(b) / cut.unit;
  }
  const std::vector<Take> group_takes = GreedyBestFit(group_units, need);
  if (group_takes.empty()) return std::nullopt;
  std::vector<HostId> sequence;
  sequence.reserve(ctx.nodes);
  for (const Take& gt : group_takes) {
    const std::vector<int32_t>& group = groups[gt.index];
    std::vector<int> units(group.size());
    for (size_t j = 0; j < group.size(); ++j) units[j] = inv.block_free(group[j]) / cut.unit;
    std::vector<Take> takes = GreedyBestFit(units, gt.amount);
    for (Take& t : takes) t.amount *= cut.unit;
    TakeFromBlocks(inv, group, takes, sequence);
  }
  Candidate c;
  c.node_hosts.assign(ctx.nodes, -1);
  for (int i = 0; i < ctx.nodes; ++i) c.node_hosts[cut.node_order[i]] = sequence[i];
  c.how = absl::StrCat(cut.name, " packing in ",
                       domain.level == DomainLevel::kPod ? absl::StrCat("pod ", domain.id)
                                                         : std::string("the cluster"));
  return c;
}

}  // namespace

absl::StatusOr<std::vector<Candidate>> TopoplacePolicy::Propose(
    const PlacementContext& ctx) const {
  const Inventory& inv = ctx.inventory;
  const DomainLevel allowed = ctx.job.mode == ConstraintMode::kHard
                                  ? MaxLevelFor(ctx.job.max_tier)
                                  : DomainLevel::kCluster;
  std::vector<Candidate> out;

  // 1. One block: every DP and PP pair stays under the block's leaves.
  std::vector<Domain> blocks = FittingDomains(inv, DomainLevel::kBlock, ctx.nodes);
  for (size_t i = 0; i < blocks.size() && i < kBlockCandidates; ++i) {
    Candidate c;
    std::vector<uint8_t> taken(ctx.fabric.hosts().size(), 0);
    inv.TakeHosts(blocks[i].id, ctx.nodes, taken, c.node_hosts);
    c.how = absl::StrCat("best fit in block ", blocks[i].id, " (", blocks[i].free,
                         " free nodes)");
    out.push_back(std::move(c));
  }
  if (!out.empty()) return out;
  if (allowed == DomainLevel::kBlock) {
    int largest = 0;
    for (size_t b = 0; b < ctx.fabric.blocks().size(); ++b) {
      largest = std::max(largest, inv.block_free(static_cast<int32_t>(b)));
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "max_tier=", MaxTierName(ctx.job.max_tier), " (hard): the job needs ", ctx.nodes,
        " nodes in one block, the freest block has ", largest));
  }

  // 2. Several blocks of one pod, then of the whole cluster. Stage- or column-aligned
  // packings stop the search at the smallest domain that admits one; unaligned packings
  // are kept as fallbacks in case no domain admits an aligned one.
  std::vector<Cut> cuts;
  for (Dim dim : {Dim::kPp, Dim::kDp}) {
    if (std::optional<Cut> cut = MakeCut(ctx, dim)) cuts.push_back(std::move(*cut));
  }
  std::vector<Domain> domains;
  std::vector<Domain> pods = FittingDomains(inv, DomainLevel::kPod, ctx.nodes);
  for (size_t i = 0; i < pods.size() && i < kPodCandidates; ++i) domains.push_back(pods[i]);
  if (allowed == DomainLevel::kCluster) {
    for (const Domain& d : FittingDomains(inv, DomainLevel::kCluster, ctx.nodes)) {
      domains.push_back(d);
    }
  }
  std::vector<Candidate> fallbacks;
  for (const Domain& domain : domains) {
    for (const Cut& cut : cuts) {
      if (std::optional<Candidate> c = Pack(ctx, domain, cut)) out.push_back(std::move(*c));
    }
    if (fallbacks.empty()) {
      if (std::optional<Candidate> c = Pack(ctx, domain, PlainCut(ctx))) {
        fallbacks.push_back(std::move(*c));
      }
    }
    if (!out.empty()) break;
  }
  for (Candidate& c : fallbacks) out.push_back(std::move(c));
  if (!out.empty()) return out;
  return absl::ResourceExhaustedError(absl::StrCat(
      "max_tier=", MaxTierName(ctx.job.max_tier), " (hard): no ",
      allowed == DomainLevel::kPod ? "pod" : "domain", " has ", ctx.nodes,
      " free nodes (the cluster has ", inv.total_free(), ")"));
}

}  // namespace topoplace::sched
