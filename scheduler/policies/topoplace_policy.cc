#include "scheduler/policies/topoplace_policy.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/framework/domain_select.h"
#include "scheduler/framework/nvlink_domains.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/policies/block_packing.h"
#include "scheduler/policies/fragment_yield.h"
#include "scheduler/policies/nvlink_packing.h"
#include "scheduler/policies/rail_matching.h"
#include "scheduler/traffic/node_graph.h"
#include "scheduler/traffic/run_crossings.h"

namespace topoplace::sched {
namespace {

// Single-block candidates considered when the job fits one block: the best fits, so the
// scorers (link health, fragmentation) can break ties between equally tight blocks.
constexpr int kBlockCandidates = 3;
// Pods tried at the pod level, best fit first.
constexpr size_t kPodCandidates = 2;
// Multi-block candidates handed to the engine's full evaluation: the cheapest by
// cross-block bytes, plus the runner-up if it is within 2% of it and takes other hosts,
// for the other scorers to weigh. The node-level estimate is exact for node-aligned
// dimensions, so candidates further behind rarely win and would only cost time on big
// jobs.
constexpr size_t kMultiBlockCandidates = 2;
constexpr double kNearTieFraction = 0.02;

// A single-host-granule selection of one domain, what every hybrid layout of the domain
// starts from, and its greedy amounts in selection and in block id order: no cut's unit
// changes those two (only the residue chain and the trimmed amounts depend on it).
struct HybridSelection {
  BlockSelection selection;
  BlockSequence greedy_in_order, greedy_by_id;
};
// Pods first and (on a multi-pod domain) across all its blocks.
struct HybridSelections {
  std::optional<HybridSelection> by_pod, flat;
};

std::optional<HybridSelection> SelectForHybrid(const PlacementContext& ctx, const Domain& domain,
                                               bool by_pod) {
  std::optional<BlockSelection> selection = SelectBlocks(ctx, domain, 1, by_pod);
  if (!selection) return std::nullopt;
  HybridSelection out{*std::move(selection), {}, {}};
  out.greedy_in_order = Arrange(out.selection, 1, 1, Amounts::kGreedy, Order::kSelection);
  out.greedy_by_id = Arrange(out.selection, 1, 1, Amounts::kGreedy, Order::kBlockId);
  return out;
}

HybridSelections SelectForHybrids(const PlacementContext& ctx, const Domain& domain) {
  HybridSelections out;
  out.by_pod = SelectForHybrid(ctx, domain, true);
  if (out.by_pod && MultiPod(ctx.fabric, domain)) out.flat = SelectForHybrid(ctx, domain, false);
  return out;
}

// A cut and the count of its layouts' cross-block bytes (from the blocks' runs along the
// cut's node order).
struct CutModel {
  Cut cut;
  RunCrossings crossings;
};

// What kind of multi-block layout: along which cut, whole units per block (aligned) or
// units split (a hybrid), in which domain, and (aligned) whether blocks are chosen pod by
// pod. The search that leaves out blocks starts with the kind of the plain search's
// cheapest layout (AvoidingBlocks).
struct LayoutKind {
  const CutModel* cut = nullptr;
  bool aligned = false;
  Domain domain;
  bool by_pod = false;
};

// A multi-block layout before its hosts are taken: blocks in packing order along a cut,
// and the node graph's cross-block bytes. Candidates are ranked on these and only the
// kept ones are materialized (Materialize takes exactly each block's amount along the
// cut's node order, so a candidate's node slots sit in the runs counted: the bytes do not
// change).
struct Layout {
  BlockSequence seq;
  LayoutKind kind;
  double bytes = 0;
  bool pods_first = false;  // by pod, on a domain of several pods
};

// True when `a` and `b` take the very same hosts: the same blocks, amounts and order,
// filled in the same node order (Materialize). A hybrid whose amounts and order come out
// as the aligned layout's of its cut is such a twin, and so is a layout of a cut whose
// node order is the plain one (the pp or dp cut when that dimension is the outermost).
bool SameHosts(const Layout& a, const Layout& b) {
  return a.seq == b.seq &&
         (a.kind.cut == b.kind.cut || a.kind.cut->cut.node_order == b.kind.cut->cut.node_order);
}

// The candidate's `how`, written only for the layouts kept.
std::string Describe(const Layout& l) {
  const LayoutKind& k = l.kind;
  if (!k.aligned) {
    return absl::StrCat(k.cut->cut.name, " packing across blocks of ", DomainName(k.domain));
  }
  return absl::StrCat(k.cut->cut.name, " packing, whole units per block, in ", DomainName(k.domain),
                      l.pods_first ? ", pods first" : "");
}

// The layout of `cut` over `domain` with the fewest cross-block bytes among the amount
// and order variants, or nullopt if the domain cannot hold the job. Variants that come
// out identical to an earlier one are not re-scored (they cannot be strictly better).
std::optional<Layout> BestHybrid(const PlacementContext& ctx, const Domain& domain,
                                 const CutModel& model, const HybridSelections& selections) {
  // The variants this cut builds, per pass (by pod, then not): the residue chain and the
  // trimmed amounts in every order. The selections' greedy variants are read in place.
  std::array<BlockSequence, 2> chained;
  std::array<std::array<BlockSequence, kOrders.size()>, 2> trimmed;
  // The distinct variants so far, in order: on the stack (this runs per cut, per placement).
  absl::InlinedVector<const BlockSequence*, 2 * 2 * kOrders.size()> seen;
  const BlockSequence* best = nullptr;
  double best_bytes = 0;
  const auto consider = [&](const BlockSequence& seq) {
    for (const BlockSequence* s : seen) {
      if (*s == seq) return;
    }
    const double bytes = model.crossings.Bytes(seq);
    if (best == nullptr || bytes < best_bytes) {
      best = &seq;
      best_bytes = bytes;
    }
    seen.push_back(&seq);
  };
  static_assert(kOrders == std::array{Order::kSelection, Order::kBlockId, Order::kResidueChain});
  const int unit = model.cut.unit;
  for (int pass = 0; pass < 2; ++pass) {
    const bool by_pod = pass == 0;
    if (!by_pod && !MultiPod(ctx.fabric, domain)) break;
    const std::optional<HybridSelection>& hybrid = by_pod ? selections.by_pod : selections.flat;
    if (!hybrid) return std::nullopt;
    // Every order of kOrders, greedy amounts then trimmed to whole units: the first two
    // greedy ones are the selection's; for units of one node the residue chain is the
    // selection order again, and trimming changes nothing.
    consider(hybrid->greedy_in_order);
    consider(hybrid->greedy_by_id);
    if (unit <= 1) continue;
    chained[pass] = Arrange(hybrid->selection, 1, unit, Amounts::kGreedy, Order::kResidueChain);
    consider(chained[pass]);
    trimmed[pass] = ArrangeEachOrder(hybrid->selection, 1, unit, Amounts::kUnitTrimmed);
    for (const BlockSequence& seq : trimmed[pass]) consider(seq);
  }
  return Layout{*best, {&model, /*aligned=*/false, domain}, best_bytes};
}

// What depends only on the job (its cuts and their byte counts) is built once per
// proposal and shared by the searches that differ in the blocks they may use.
struct JobCuts {
  std::vector<CutModel> cuts;  // stage and DP-column cuts, where the job has them
  CutModel plain;
};

// The cuts hybrids are built along: the job's, then the plain one.
absl::InlinedVector<const CutModel*, 3> HybridCuts(const JobCuts& job_cuts) {
  absl::InlinedVector<const CutModel*, 3> out;
  for (const CutModel& model : job_cuts.cuts) out.push_back(&model);
  out.push_back(&job_cuts.plain);
  return out;
}

// Internal if the job's node graph cannot be counted by runs: every valid job can (its
// groups tile job.nodes() slots and nest), so that would be a bug.
absl::StatusOr<JobCuts> BuildJobCuts(const PlacementContext& ctx) {
  const NodeGraph graph = BuildNodeGraph(ctx.layout, ctx.traffic, ctx.job.gpus_per_node, ctx.nodes);
  const auto internal = [&](const absl::Status& s) {
    return absl::InternalError(absl::StrCat("cannot count the layouts of ", FormatJobSpec(ctx.job),
                                            " by runs: ", s.message()));
  };
  absl::StatusOr<RunCrossings> in_order = RunCrossings::InNodeOrder(graph);
  if (!in_order.ok()) return internal(in_order.status());
  JobCuts out{{}, {PlainCut(ctx), *std::move(in_order)}};
  constexpr std::array kCutDims = {Dim::kPp, Dim::kDp};
  out.cuts.reserve(kCutDims.size());
  for (Dim dim : kCutDims) {
    std::optional<Cut> cut = MakeCut(ctx, dim);
    if (!cut) continue;
    absl::StatusOr<RunCrossings> grouped =
        RunCrossings::GroupedBy(graph, ctx.layout, dim, ctx.job.gpus_per_node);
    if (!grouped.ok()) return internal(grouped.status());
    out.cuts.push_back({*std::move(cut), *std::move(grouped)});
  }
  return out;
}

// The domains a several-block search tries, in order: the tightest fitting pods (at most
// kPodCandidates), then the cluster where `allowed`.
std::vector<Domain> SearchDomains(const PlacementContext& ctx, DomainLevel allowed) {
  std::vector<Domain> domains = FittingDomains(ctx.inventory, DomainLevel::kPod, ctx.nodes);
  if (domains.size() > kPodCandidates) domains.resize(kPodCandidates);
  if (allowed == DomainLevel::kCluster) {
    for (const Domain& d : FittingDomains(ctx.inventory, DomainLevel::kCluster, ctx.nodes)) {
      domains.push_back(d);
    }
  }
  return domains;
}

// The aligned layout of `kind` (whole units of its cut per block, pods first or not), or
// nullopt if its domain cannot hold the job that way. Precondition: kind.aligned.
std::optional<Layout> AlignedLayout(const PlacementContext& ctx, const LayoutKind& kind) {
  const Cut& cut = kind.cut->cut;
  std::optional<BlockSequence> seq = ChooseBlocks(ctx, kind.domain, cut.unit, cut.unit, kind.by_pod,
                                                  Amounts::kGreedy, Order::kSelection);
  if (!seq) return std::nullopt;
  const double bytes = kind.cut->crossings.Bytes(*seq);
  return Layout{*std::move(seq), kind, bytes, kind.by_pod && MultiPod(ctx.fabric, kind.domain)};
}

// The aligned layouts of `model`'s cut over `domain` that it holds: pods first, then (on a
// domain of several pods) not.
absl::InlinedVector<Layout, 2> AlignedLayouts(const PlacementContext& ctx, const CutModel& model,
                                              const Domain& domain) {
  absl::InlinedVector<Layout, 2> out;
  for (bool by_pod : {true, false}) {
    if (!by_pod && !MultiPod(ctx.fabric, domain)) break;
    if (std::optional<Layout> l = AlignedLayout(ctx, {&model, true, domain, by_pod})) {
      out.push_back(*std::move(l));
    }
  }
  return out;
}

// The layout of `kind` on the blocks ctx lets the job use, or nullopt if they cannot hold
// it: a hybrid, the best of its cut over its domain; an aligned one, in its domain or else
// in the first domain after it, in the plain search's order (the tightest pods, then the
// cluster where `allowed`), that holds whole units of its cut.
std::optional<Layout> LayoutOfKind(const PlacementContext& ctx, const LayoutKind& kind,
                                   DomainLevel allowed) {
  if (!kind.aligned) {
    return BestHybrid(ctx, kind.domain, *kind.cut, SelectForHybrids(ctx, kind.domain));
  }
  if (std::optional<Layout> l = AlignedLayout(ctx, kind)) return l;
  const std::vector<Domain> domains = SearchDomains(ctx, allowed);
  const auto same = [&](const Domain& d) {
    return d.level == kind.domain.level && d.id == kind.domain.id;
  };
  const auto at = std::find_if(domains.begin(), domains.end(), same);
  for (auto next = at == domains.end() ? at : at + 1; next != domains.end(); ++next) {
    // Pods first or not, as the plain search weighs them there: fewer bytes, then pods
    // first (a pod's own kind says nothing about it: its blocks are one pod's).
    absl::InlinedVector<Layout, 2> held = AlignedLayouts(ctx, *kind.cut, *next);
    if (held.empty()) continue;
    return *std::min_element(held.begin(), held.end(),
                             [](const Layout& a, const Layout& b) { return a.bytes < b.bytes; });
  }
  return std::nullopt;
}

// The candidates kept, and the kind of the first (the cheapest layout), if any.
struct MultiBlock {
  std::vector<Candidate> candidates;
  std::optional<LayoutKind> cheapest;
};

// Several blocks of one pod, else of the whole cluster. In the smallest domain that fits
// (the first), every layout competes (which dimension is cheaper to cut depends on the
// model), aligned ones and hybrids that split units; larger domains are tried only for an
// aligned layout (no unit split), and only while no domain before them admitted one.
// Hybrids are built for the first domain alone, on purpose: it is the tightest fit, and a
// hybrid in a looser domain would only spread the job further (pinned by the test
// TopoplacePolicy.HybridLayoutsComeFromTheSmallestFittingDomainOnly). Returns the
// cheapest candidates by cross-block bytes (at most `kept_at_most`, see
// kMultiBlockCandidates), or none.
MultiBlock MultiBlockCandidates(const PlacementContext& ctx, DomainLevel allowed,
                                const JobCuts& job_cuts,
                                size_t kept_at_most = kMultiBlockCandidates) {
  const std::vector<Domain> domains = SearchDomains(ctx, allowed);
  // Aligned (by pod or not, per cut, from the one domain that admits them), then hybrids
  // (per cut and the plain one): seven at most, on the stack.
  absl::InlinedVector<Layout, 2 * 2 + 2 + 1> layouts;
  bool aligned_found = false;
  for (size_t i = 0; i < domains.size() && !aligned_found; ++i) {
    const Domain& domain = domains[i];
    for (const CutModel& model : job_cuts.cuts) {
      for (Layout& l : AlignedLayouts(ctx, model, domain)) {
        layouts.push_back(std::move(l));
        aligned_found = true;
      }
    }
    if (i > 0) continue;  // hybrids: the smallest fitting domain only (see above)
    const HybridSelections selections = SelectForHybrids(ctx, domain);
    for (const CutModel* model : HybridCuts(job_cuts)) {
      if (std::optional<Layout> l = BestHybrid(ctx, domain, *model, selections)) {
        layouts.push_back(*std::move(l));
      }
    }
  }
  absl::InlinedVector<size_t, 2 * 2 + 2 + 1> ranked(layouts.size());
  std::iota(ranked.begin(), ranked.end(), 0);
  // Fewest bytes first, ties in layout order (a stable sort, without its buffer).
  std::sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    return std::pair(layouts[a].bytes, a) < std::pair(layouts[b].bytes, b);
  });
  MultiBlock out;
  out.candidates.reserve(std::min(kept_at_most, ranked.size()));
  for (size_t i = 0; i < ranked.size() && i < kept_at_most; ++i) {
    const Layout& l = layouts[ranked[i]];
    if (i > 0 && l.bytes > layouts[ranked[0]].bytes * (1 + kNearTieFraction)) break;
    // A twin of a layout ranked before it (same bytes, same hosts) gives the scorers
    // nothing to weigh, and the engine would sketch it for nothing (issue 36): it is
    // dropped, and no layout further behind takes its place.
    const auto twin = [&](size_t earlier) { return SameHosts(l, layouts[earlier]); };
    if (std::any_of(ranked.begin(), ranked.begin() + i, twin)) continue;
    out.candidates.push_back(Materialize(ctx, l.seq, l.kind.cut->cut, Describe(l)));
  }
  if (!ranked.empty()) out.cheapest = layouts[ranked[0]].kind;
  return out;
}

// Per block, 1 if its leaves' uplinks carry more of the running jobs' traffic than the
// blocks' mean (the mean over its leaves of ctx.uplink_busy); empty when no load is known
// or no block is above the mean. The mean, not a fixed level, so that "hot" means hotter
// than the alternatives whatever the cluster's overall load.
std::vector<uint8_t> HotBlocks(const PlacementContext& ctx) {
  const std::vector<Block>& blocks = ctx.fabric.blocks();
  const std::span<const double> busy = ctx.uplink_busy;
  if (busy.empty() || blocks.empty()) return {};
  std::vector<double> heat(blocks.size(), 0);
  double mean = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    double sum = 0;
    for (SwitchId leaf : blocks[b].leaves) {
      // A leaf without a load (a negative id, or past `busy`) adds nothing. The load is
      // read at a clamped index and then kept or not, without a branch: this runs for
      // every leaf of the fabric per placement.
      const size_t at = static_cast<size_t>(leaf);
      const double load = busy[std::min(at, busy.size() - 1)];
      sum += at < busy.size() ? load : 0.0;
    }
    heat[b] = blocks[b].leaves.empty() ? 0 : sum / static_cast<double>(blocks[b].leaves.size());
    mean += heat[b] / static_cast<double>(blocks.size());
  }
  std::vector<uint8_t> hot(blocks.size(), 0);
  bool any = false;
  for (size_t b = 0; b < blocks.size(); ++b) {
    hot[b] = heat[b] > mean ? 1 : 0;
    any = any || hot[b] != 0;
  }
  return any ? hot : std::vector<uint8_t>{};
}

// Phase 0, one host: nothing crosses the network, so the only thing placement decides is
// what is left for the jobs behind it. The first host in fabric order with room packs
// small jobs together and keeps whole hosts (and whole blocks) free; best fit by blocks'
// free host counts breaks whole hosts for sub-node jobs, and on the Philly trace that kept
// the queue's head waiting with its GPUs free longer (docs/report/FINDINGS.md).
std::optional<Candidate> OneHost(const PlacementContext& ctx) {
  for (HostId h = 0; h < static_cast<HostId>(ctx.fabric.hosts().size()); ++h) {
    if (ctx.inventory.eligible(h))
      return Candidate{{h}, "first host in fabric order with room (one host)"};
  }
  return std::nullopt;
}

// Phase 1, one block: every DP and PP pair stays under the block's leaves. The best fits
// (at most kBlockCandidates), tightest first, each followed by its rail-matched hosts
// where the job's nodes take part of a host and the best fit's do not share rails
// (rail_matching.h).
std::vector<Candidate> OneBlock(const PlacementContext& ctx) {
  const Inventory& inv = ctx.inventory;
  std::vector<Candidate> out;
  std::vector<Domain> blocks = FittingDomains(inv, DomainLevel::kBlock, ctx.nodes);
  for (size_t i = 0; i < blocks.size() && i < kBlockCandidates; ++i) {
    Candidate c;
    inv.TakeFromUntouchedBlock(blocks[i].id, ctx.nodes, c.node_hosts,
                               Inventory::Take::kHealthyFirst);
    c.how = absl::StrCat("best fit in block ", blocks[i].id, " (", blocks[i].free, " free nodes)");
    out.push_back(std::move(c));
    if (std::optional<std::vector<HostId>> matched =
            RailMatchedHosts(inv, ctx.job, blocks[i].id, ctx.nodes)) {
      out.push_back({*std::move(matched),
                     absl::StrCat("rail-matched fit in block ", blocks[i].id,
                                  " (hosts whose first free GPUs have the same indices)")});
    }
  }
  return out;
}

absl::Status NoBlockFits(const PlacementContext& ctx) {
  int largest = 0;
  for (size_t b = 0; b < ctx.fabric.blocks().size(); ++b) {
    largest = std::max(largest, ctx.inventory.block_free(static_cast<int32_t>(b)));
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("max_tier=", MaxTierName(ctx.job.max_tier), " (hard): the job needs ", ctx.nodes,
                   " nodes in one block, the freest block has ", largest));
}

// Phase 3, with the running jobs' uplink load or bad uplinks known: a several-block layout
// that leaves out the blocks `avoid` marks (whose uplinks are `why`), if the others can
// hold the job and it is not among `found` already. It is `found`'s cheapest layout
// remade on the other blocks (LayoutOfKind: the same cut, whole units per block or not,
// in the same domain or for whole units the next that holds them) where they can hold
// that; else the cheapest of every layout on them. Where that is a layout found already
// (the plain choice leaves those blocks out itself), there is nothing to add. The
// engine's scorers weigh it against the others (its spine bytes against their hot bytes
// or bad links). Starting from the cheapest layout spares most of a second full search
// on every load-aware placement (issue 36).
std::optional<Candidate> AvoidingBlocks(const PlacementContext& ctx, DomainLevel allowed,
                                        const JobCuts& job_cuts, const MultiBlock& found,
                                        std::span<const uint8_t> avoid, absl::string_view why) {
  if (!found.cheapest || avoid.empty()) return std::nullopt;
  PlacementContext cool = ctx;
  cool.avoid_blocks = avoid;
  std::optional<Candidate> avoiding;
  if (std::optional<Layout> l = LayoutOfKind(cool, *found.cheapest, allowed)) {
    avoiding = Materialize(cool, l->seq, l->kind.cut->cut, Describe(*l));
  } else if (std::vector<Candidate> any =
                 MultiBlockCandidates(cool, allowed, job_cuts, /*kept_at_most=*/1).candidates;
             !any.empty()) {
    avoiding = std::move(any.front());
  }
  if (!avoiding) return std::nullopt;
  const bool known =
      std::any_of(found.candidates.begin(), found.candidates.end(),
                  [&](const Candidate& c) { return c.node_hosts == avoiding->node_hosts; });
  if (known) return std::nullopt;
  absl::StrAppend(&avoiding->how, ", leaving out blocks with ", why, " uplinks");
  return avoiding;
}

// On fabrics whose NVLink domains span hosts, TP x CP x EP groups (the heaviest traffic:
// TP's all-reduces and EP's all-to-all, on the critical path of every layer) stay inside a
// domain whenever some candidate keeps them there: the others are dropped. When none does
// and a domain could hold a group, a hard job waits for one rather than run with those
// groups on the NICs (about 5.5x slowed on gb200-nvl72 with shared links: a 16-tray expert
// group split 10 + 6 over two racks sends most of its all-to-all over the network,
// docs/report/FINDINGS.md); the caller that bounds the wait (max_wait, or mode=soft)
// places it across domains instead. Groups larger than any domain are split as before.
// The rule holds for hosts the caller names (hosts=) too: on hosts that split the groups
// a hard job is refused, and mode=soft places it there (the simulator's topology-aware
// preemption starts its head so; with these hosts placed anyway its high-priority MoE
// jobs waited 11-27% longer).
absl::StatusOr<std::vector<Candidate>> KeepGroupsInDomains(const PlacementContext& ctx,
                                                           std::vector<Candidate> out) {
  if (!ctx.inventory.nvlink_level()) return out;
  const int largest = LargestNvlinkDomain(ctx.fabric);
  const int unit = NvlinkUnitNodes(ctx.job, largest);
  const auto splits = [&](const Candidate& c) {
    return !GroupsStayInDomains(ctx.fabric, c.node_hosts, unit);
  };
  if (!std::all_of(out.begin(), out.end(), splits)) {
    std::erase_if(out, splits);
    return out;
  }
  const int64_t group_gpus = ctx.job.group_gpus();
  const bool fits_a_domain = group_gpus <= int64_t{largest} * ctx.job.gpus_per_node;
  if (out.empty() || unit <= 1 || !fits_a_domain || ctx.job.mode != ConstraintMode::kHard) {
    return out;
  }
  // A TP group no free domain holds is the engine's to refuse, naming the domain.
  const int tp_span = TpSpanNodes(ctx.job);
  if (tp_span > 1 && !GroupsStayInDomains(ctx.fabric, out.front().node_hosts, tp_span)) return out;
  int freest = 0;
  for (int32_t d = 0; d < static_cast<int32_t>(ctx.fabric.nvlink_domains().size()); ++d) {
    freest = std::max(freest, ctx.inventory.nvlink_free(d));
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "the job's TP x CP x EP groups (", unit, " hosts each: ", group_gpus,
      " GPUs) fit no free NVLink domain now (the freest has ", freest,
      " free hosts); it waits for one rather than run them over the network (mode=soft, or "
      "max_wait once it has waited that long, places it across domains)"));
}

// The candidates that keep the job's groups in NVLink domains (KeepGroupsInDomains), less
// those that should leave partly used domains to the jobs waiting behind it
// (fragment_yield.h).
absl::StatusOr<std::vector<Candidate>> Finish(const PlacementContext& ctx,
                                              std::vector<Candidate> out) {
  TP_ASSIGN_OR_RETURN(out, KeepGroupsInDomains(ctx, std::move(out)));
  if (out.empty()) return out;
  return LeaveFragmentsToWaitingJobs(ctx, std::move(out));
}

}  // namespace

absl::StatusOr<std::vector<Candidate>> TopoplacePolicy::Propose(const PlacementContext& ctx) const {
  const DomainLevel allowed = ctx.job.mode == ConstraintMode::kHard
                                  ? MaxLevelFor(ctx.job.max_tier, ctx.fabric)
                                  : DomainLevel::kCluster;
  if (ctx.nodes == 1) {
    if (std::optional<Candidate> c = OneHost(ctx)) return std::vector<Candidate>{*std::move(c)};
  }
  // NVLink domains spanning hosts are the innermost level (nvlink_packing.h): one domain
  // when one holds the job; otherwise the fewest domains competes with the block phases.
  std::vector<Candidate> out;
  if (ctx.inventory.nvlink_level()) {
    if (std::vector<Candidate> one = OneNvlinkDomain(ctx, kBlockCandidates); !one.empty()) {
      return one;
    }
    if (std::optional<Candidate> c = FewestNvlinkDomains(ctx, allowed)) {
      // The same hosts in the block phases' arrangements too (stage or DP-column cuts at
      // block boundaries): which order sends the fewest bytes off NVLink depends on the
      // job, so the engine weighs them all.
      const Inventory chosen = ctx.inventory.RestrictedTo(c->node_hosts);
      PlacementContext sub = {
          ctx.fabric, ctx.job,  ctx.layout,      ctx.traffic,      chosen,
          ctx.nodes,  ctx.seed, ctx.uplink_busy, ctx.avoid_blocks, ctx.bad_uplink_blocks};
      TP_ASSIGN_OR_RETURN(const JobCuts sub_cuts, BuildJobCuts(sub));
      for (std::vector<Candidate> arranged :
           {OneBlock(sub), MultiBlockCandidates(sub, allowed, sub_cuts).candidates}) {
        for (Candidate& a : arranged) {
          a.how += ", over the hosts of the fewest NVLink domains";
          out.push_back(std::move(a));
        }
      }
      out.push_back(*std::move(c));
    }
    // Whole pipeline stages per domain, where a stage is larger than the groups
    // FewestNvlinkDomains keeps whole and fits a domain: only PP's activations leave the
    // domains, DP's gradient all-reduce stays on NVLink. (Whole DP replicas per domain,
    // tried as well, never changed an outcome of the report's mixes and cost every
    // placement of a job whose stage fits no domain one more candidate, so it is not
    // proposed.)
    const int group = NvlinkUnitNodes(ctx.job, LargestNvlinkDomain(ctx.fabric));
    if (std::optional<Cut> stages = MakeCut(ctx, Dim::kPp); stages && stages->unit > group) {
      if (std::optional<Candidate> c = UnitsPerNvlinkDomain(ctx, allowed, *stages)) {
        out.push_back(*std::move(c));
      }
    }
  }
  if (std::vector<Candidate> blocks = OneBlock(ctx); !blocks.empty()) {
    for (Candidate& c : blocks) out.push_back(std::move(c));
    return Finish(ctx, std::move(out));
  }
  if (allowed == DomainLevel::kBlock) return NoBlockFits(ctx);
  // Phase 2, several blocks (MultiBlockCandidates).
  TP_ASSIGN_OR_RETURN(const JobCuts job_cuts, BuildJobCuts(ctx));
  MultiBlock multi = MultiBlockCandidates(ctx, allowed, job_cuts);
  const std::vector<uint8_t> hot = HotBlocks(ctx);
  for (auto [avoid, why] :
       {std::pair<std::span<const uint8_t>, absl::string_view>(hot, "hotter than average"),
        {ctx.bad_uplink_blocks, "down or degraded"}}) {
    if (std::optional<Candidate> c = AvoidingBlocks(ctx, allowed, job_cuts, multi, avoid, why)) {
      multi.candidates.push_back(*std::move(c));
    }
  }
  for (Candidate& c : multi.candidates) out.push_back(std::move(c));
  if (!out.empty()) return Finish(ctx, std::move(out));
  return absl::ResourceExhaustedError(
      absl::StrCat("max_tier=", MaxTierName(ctx.job.max_tier), " (hard): no ",
                   allowed == DomainLevel::kPod ? "pod" : "domain", " has ", ctx.nodes,
                   " free nodes (the cluster has ", ctx.inventory.total_free(), ")"));
}

}  // namespace topoplace::sched
