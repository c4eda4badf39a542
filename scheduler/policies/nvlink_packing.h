// How the topoplace policy places a job on a fabric whose NVLink domains span hosts
// (GB200 NVL72 racks): inside one domain when one can hold it, otherwise over the fewest
// domains, whole free domains first, each taking whole TP x CP x EP groups so the
// heaviest dimensions stay on NVLink (see scheduler/framework/nvlink_domains.h).
//
//   if (ctx.inventory.nvlink_level()) {
//     if (auto one = OneNvlinkDomain(ctx, 3); !one.empty()) return one;
//     if (auto c = FewestNvlinkDomains(ctx, allowed)) out.push_back(*c);
//     if (auto stages = MakeCut(ctx, Dim::kPp))
//       if (auto c = UnitsPerNvlinkDomain(ctx, allowed, *stages)) out.push_back(*c);
//   }
//
// Pure functions of their input; thread-safe. Preconditions: ctx.inventory.nvlink_level().
#ifndef TOPOPLACE_SCHEDULER_POLICIES_NVLINK_PACKING_H_
#define TOPOPLACE_SCHEDULER_POLICIES_NVLINK_PACKING_H_

#include <optional>
#include <vector>

#include "scheduler/framework/domain_select.h"
#include "scheduler/framework/placement_policy.h"
#include "scheduler/policies/block_packing.h"

namespace topoplace::sched {

// The tightest NVLink domains (fewest eligible hosts first, ties by id; at most `count`)
// that hold all ctx.nodes hosts, each one candidate.
std::vector<Candidate> OneNvlinkDomain(const PlacementContext& ctx, int count);

// The job over the fewest NVLink domains of the tightest block that can hold it, else of
// the tightest pod, else of the cluster (as far as `allowed` reaches): domains taken by
// capacity in whole TP x CP x EP groups, largest first (whole free domains), the last the
// smallest that covers the rest; node slots fill them block by block. Groups are split
// only where whole groups cannot fit. nullopt when no scope has the hosts.
std::optional<Candidate> FewestNvlinkDomains(const PlacementContext& ctx, DomainLevel allowed);

// The job over NVLink domains that each hold whole units of `cut` (block_packing.h's
// MakeCut: whole pipeline stages, or whole DP-index columns), so that only the cut's
// dimension leaves a domain: a dense job's DP all-reduce stays on NVLink when its stages
// do. Domains are chosen as FewestNvlinkDomains chooses them (the tightest scope that
// holds the job so, fewest domains first), with capacity counted in whole units; node
// slots follow the cut's node order. nullopt when a unit is larger than every domain, or
// no scope holds the job in whole units. (The topoplace policy proposes it with the pp cut.)
std::optional<Candidate> UnitsPerNvlinkDomain(const PlacementContext& ctx, DomainLevel allowed,
                                              const Cut& cut);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_POLICIES_NVLINK_PACKING_H_
