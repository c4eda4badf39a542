#include "scheduler/policies/nvlink_packing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {
namespace {

// What a domain can take in whole units of `unit` nodes.
int UnitCapacity(const PlacementContext& ctx, int32_t d, int unit) {
  return ctx.inventory.nvlink_free(d) / unit * unit;
}

// ctx.nodes hosts over the fewest of the domains of `blocks`, each domain's share a
// multiple of `unit` but for the last; empty if they cannot hold the job that way. Blocks
// first (fewest, by their domains' capacity), then domains inside each chosen block, as
// Kueue descends its levels: the traffic between domains stays under one leaf group
// where it can.
std::vector<HostId> Pack(const PlacementContext& ctx, const std::vector<int32_t>& blocks,
                         int unit) {
  std::vector<std::vector<int32_t>> domains(blocks.size());
  std::vector<int> block_capacity(blocks.size(), 0);
  for (size_t i = 0; i < blocks.size(); ++i) {
    domains[i] = NvlinkDomainsOf(ctx.fabric, blocks[i]);
    for (int32_t d : domains[i]) block_capacity[i] += UnitCapacity(ctx, d, unit);
  }
  Takes block_takes = GreedyBestFit(block_capacity, ctx.nodes);
  if (block_takes.empty()) return {};
  // Node slots fill blocks, and domains inside them, in fabric order.
  const auto by_index = [](const Take& a, const Take& b) { return a.index < b.index; };
  std::sort(block_takes.begin(), block_takes.end(), by_index);
  std::vector<HostId> hosts;
  for (const Take& bt : block_takes) {
    const std::vector<int32_t>& in_block = domains[bt.index];
    std::vector<int> capacity(in_block.size());
    for (size_t i = 0; i < in_block.size(); ++i) capacity[i] = UnitCapacity(ctx, in_block[i], unit);
    Takes takes = GreedyBestFit(capacity, bt.amount);
    std::sort(takes.begin(), takes.end(), by_index);
    for (const Take& t : takes) ctx.inventory.TakeFromDomain(in_block[t.index], t.amount, hosts);
  }
  return hosts;
}

// The scopes a several-domain search tries, tightest first: the blocks, pods and the
// cluster (as far as `allowed` reaches) that have ctx.nodes eligible hosts.
std::vector<Domain> Scopes(const PlacementContext& ctx, DomainLevel allowed) {
  std::vector<Domain> scopes = FittingDomains(ctx.inventory, DomainLevel::kBlock, ctx.nodes);
  for (DomainLevel level : {DomainLevel::kPod, DomainLevel::kCluster}) {
    if (allowed < level) break;
    for (const Domain& d : FittingDomains(ctx.inventory, level, ctx.nodes)) scopes.push_back(d);
  }
  return scopes;
}

// The first of `scopes` whose domains hold the job in `unit`-node shares (Pack), and its
// hosts in packing order; nullopt if none does.
std::optional<std::pair<Domain, std::vector<HostId>>> FirstPacked(const PlacementContext& ctx,
                                                                  const std::vector<Domain>& scopes,
                                                                  int unit) {
  for (const Domain& scope : scopes) {
    std::vector<HostId> hosts = Pack(ctx, BlocksOf(ctx.fabric, scope), unit);
    if (!hosts.empty()) return std::pair(scope, std::move(hosts));
  }
  return std::nullopt;
}

}  // namespace

std::vector<Candidate> OneNvlinkDomain(const PlacementContext& ctx, int count) {
  std::vector<std::pair<int, int32_t>> fits;  // (free hosts, domain)
  for (int32_t d = 0; d < static_cast<int32_t>(ctx.fabric.nvlink_domains().size()); ++d) {
    const int free = ctx.inventory.nvlink_free(d);
    if (free >= ctx.nodes) fits.emplace_back(free, d);
  }
  std::sort(fits.begin(), fits.end());
  std::vector<Candidate> out;
  for (size_t i = 0; i < fits.size() && static_cast<int>(i) < count; ++i) {
    Candidate c;
    ctx.inventory.TakeFromDomain(fits[i].second, ctx.nodes, c.node_hosts);
    const HostId first = ctx.fabric.nvlink_domains()[fits[i].second].front();
    c.how = absl::StrCat("best fit in the NVLink domain of ", ctx.fabric.hosts()[first].name, " (",
                         fits[i].first, " free hosts)");
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<Candidate> FewestNvlinkDomains(const PlacementContext& ctx, DomainLevel allowed) {
  const int unit = NvlinkUnitNodes(ctx.job, LargestNvlinkDomain(ctx.fabric));
  const std::vector<Domain> scopes = Scopes(ctx, allowed);
  // Whole groups in the tightest scope first; split groups (never a TP group) only where
  // no scope holds whole ones.
  const int fallback = TpSpanNodes(ctx.job);
  for (int u : {unit, fallback}) {
    if (auto packed = FirstPacked(ctx, scopes, u)) {
      return Candidate{std::move(packed->second),
                       absl::StrCat("fewest NVLink domains (", u, "-node groups) in ",
                                    DomainName(packed->first))};
    }
    if (unit == fallback) break;
  }
  return std::nullopt;
}

std::optional<Candidate> UnitsPerNvlinkDomain(const PlacementContext& ctx, DomainLevel allowed,
                                              const Cut& cut) {
  if (cut.unit > LargestNvlinkDomain(ctx.fabric)) return std::nullopt;
  std::optional<std::pair<Domain, std::vector<HostId>>> packed =
      FirstPacked(ctx, Scopes(ctx, allowed), cut.unit);
  if (!packed) return std::nullopt;
  Candidate c;
  c.node_hosts.assign(ctx.nodes, -1);
  for (int i = 0; i < ctx.nodes; ++i) c.node_hosts[cut.node_order[i]] = packed->second[i];
  c.how = absl::StrCat(cut.name, " packing, whole units (", cut.unit,
                       " nodes) per NVLink domain, in ", DomainName(packed->first));
  return c;
}

}  // namespace topoplace::sched
