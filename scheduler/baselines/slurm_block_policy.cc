// Slurm topology/block, as documented in https://slurm.schedmd.com/topology.html ("Block
// Topology") and https://slurm.schedmd.com/topology.conf.html (BlockSizes): nodes are
// grouped into base blocks; higher-level blocks are aggregates of 2^k consecutive base
// blocks (the default BlockSizes). A job goes to the lowest aggregate level whose blocks
// can hold it, choosing the aggregate with the fewest free nodes (best fit), and inside
// it uses as few base blocks as possible. We take the fabric's blocks as base blocks, in
// id order; on fabrics whose NVLink domains span hosts, the domains (GB200 NVL72 racks),
// in fabric order, as our slurm-block export writes them and as Slurm's documentation
// intends topology/block for ("Block Topology": blocks of nodes on a high-speed
// interconnect such as NVLink). Ranks follow the sorted host list.
// Version: the documentation of Slurm 23.11-25.05 (topology/block arrived in 23.11). No
// real peer here: Debian 12's Slurm is 22.05, which has no topology/block, so it is not
// checked against Slurm's code. Left out: node weights, BlockSizes other than the default
// powers of two, and --segment.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/baselines/baseline_policies.h"
#include "scheduler/framework/domain_select.h"

namespace topoplace::sched {
namespace {

class SlurmBlockPolicy final : public PlacementPolicy {
 public:
  absl::string_view name() const override { return kSlurmBlockPolicyName; }
  absl::StatusOr<std::vector<Candidate>> Propose(const PlacementContext& ctx) const override {
    const bool domains = ctx.inventory.nvlink_level();
    const int num_bases =
        static_cast<int>(domains ? ctx.fabric.nvlink_domains().size() : ctx.fabric.blocks().size());
    const auto base_free = [&](int b) {
      return domains ? ctx.inventory.nvlink_free(b) : ctx.inventory.block_free(b);
    };
    for (int size = 1; size < 2 * num_bases; size *= 2) {
      int best_start = -1, best_free = 0;
      for (int start = 0; start < num_bases; start += size) {
        int free = 0;
        for (int b = start; b < std::min(num_bases, start + size); ++b) free += base_free(b);
        if (free >= ctx.nodes && (best_start < 0 || free < best_free)) {
          best_start = start;
          best_free = free;
        }
      }
      if (best_start < 0) continue;
      std::vector<int32_t> bases;
      std::vector<int> free;
      for (int b = best_start; b < std::min(num_bases, best_start + size); ++b) {
        bases.push_back(b);
        free.push_back(base_free(b));
      }
      const std::vector<Take> takes = GreedyBestFit(free, ctx.nodes);
      Candidate c;
      if (domains) {
        for (const Take& t : takes) {
          ctx.inventory.TakeFromDomain(bases[t.index], t.amount, c.node_hosts);
        }
      } else {
        TakeFromBlocks(ctx.inventory, bases, takes, c.node_hosts);
      }
      std::sort(c.node_hosts.begin(), c.node_hosts.end());
      c.how = absl::StrCat(
          "aggregate of ", size,
          domains ? " NVLink domain(s) from domain " : " base block(s) from block ", best_start);
      return std::vector<Candidate>{std::move(c)};
    }
    return absl::ResourceExhaustedError("slurm-block: no block aggregate has enough nodes");
  }
};

}  // namespace

PlacementPolicyPtr MakeSlurmBlockPolicy() { return std::make_unique<SlurmBlockPolicy>(); }

}  // namespace topoplace::sched
