// Slurm topology/block, as documented in https://slurm.schedmd.com/topology.html ("Block
// Topology") and https://slurm.schedmd.com/topology.conf.html (BlockSizes): nodes are
// grouped into base blocks; higher-level blocks are aggregates of 2^k consecutive base
// blocks (the default BlockSizes). A job goes to the lowest aggregate level whose blocks
// can hold it, choosing the aggregate with the fewest free nodes (best fit), and inside
// it uses as few base blocks as possible. We take the fabric's blocks as base blocks, in
// id order. Ranks follow the sorted host list.
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
    const int num_blocks = static_cast<int>(ctx.fabric.blocks().size());
    for (int size = 1; size < 2 * num_blocks; size *= 2) {
      int best_start = -1, best_free = 0;
      for (int start = 0; start < num_blocks; start += size) {
        int free = 0;
        for (int b = start; b < std::min(num_blocks, start + size); ++b) {
          free += ctx.inventory.block_free(b);
        }
        if (free >= ctx.nodes && (best_start < 0 || free < best_free)) {
          best_start = start;
          best_free = free;
        }
      }
      if (best_start < 0) continue;
      std::vector<int32_t> bases;
      std::vector<int> free;
      for (int b = best_start; b < std::min(num_blocks, best_start + size); ++b) {
        bases.push_back(b);
        free.push_back(ctx.inventory.block_free(b));
      }
      const std::vector<Take> takes = GreedyBestFit(free, ctx.nodes);
      Candidate c;
      TakeFromBlocks(ctx.inventory, bases, takes, c.node_hosts);
      std::sort(c.node_hosts.begin(), c.node_hosts.end());
      c.how = absl::StrCat("aggregate of ", size, " base block(s) from block ", best_start);
      return std::vector<Candidate>{std::move(c)};
    }
    return absl::ResourceExhaustedError("slurm-block: no block aggregate has enough nodes");
  }
};

}  // namespace

PlacementPolicyPtr MakeSlurmBlockPolicy() { return std::make_unique<SlurmBlockPolicy>(); }

}  // namespace topoplace::sched
