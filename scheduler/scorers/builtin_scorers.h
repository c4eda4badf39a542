// The built-in scorers: name constants and factories. The built-in registry
// (scheduler/builtin/builtin_plugins.h) lists them all in one place with their default
// weights.
#ifndef TOPOPLACE_SCHEDULER_SCORERS_BUILTIN_SCORERS_H_
#define TOPOPLACE_SCHEDULER_SCORERS_BUILTIN_SCORERS_H_

#include "absl/strings/string_view.h"
#include "scheduler/framework/scorer.h"

namespace topoplace::sched {

inline constexpr absl::string_view kSpineBytesScorerName = "spine-bytes";
inline constexpr absl::string_view kMaxHopsScorerName = "max-hops";
inline constexpr absl::string_view kSpreadScorerName = "spread";
inline constexpr absl::string_view kFragmentationScorerName = "fragmentation";
inline constexpr absl::string_view kLinkHealthScorerName = "link-health";
inline constexpr absl::string_view kRailAlignmentScorerName = "rail-alignment";
inline constexpr absl::string_view kUplinkLoadScorerName = "uplink-load";
inline constexpr absl::string_view kNvlinkEgressScorerName = "nvlink-egress";
inline constexpr absl::string_view kNvlinkFragmentationScorerName = "nvlink-fragmentation";
inline constexpr absl::string_view kStepTimeScorerName = "step-time";
inline constexpr absl::string_view kLinkStepScorerName = "link-step";

// Bytes per iteration that climb to the spine or above, relative to every byte that
// could leave a node.
ScorerPtr MakeSpineBytesScorer();
// The most switches any communicating pair crosses, relative to 5 (a core path).
ScorerPtr MakeMaxHopsScorer();
// Blocks touched per group of each multi-member dimension beyond the first, relative to
// the group size.
ScorerPtr MakeSpreadScorer();
// Change in the number of partly used blocks: prefers finishing partly used blocks over
// opening whole free ones, which stay available for big jobs.
ScorerPtr MakeFragmentationScorer();
// Hosts with degraded NIC links, and blocks with bad uplinks when traffic leaves them.
ScorerPtr MakeLinkHealthScorer();
// Network bytes between GPUs on different rails (they leave the rail's leaf, or need PXN).
ScorerPtr MakeRailAlignmentScorer();
// Bytes a plan sends up through leaves whose uplinks running jobs already load, weighted
// by how loaded (ScoreInput::uplink_busy), relative to all the bytes it sends up: prefers
// candidates whose traffic avoids hot uplinks. 0 when no load is known.
ScorerPtr MakeUplinkLoadScorer();
// On fabrics whose NVLink domains span hosts (GB200 NVL72): bytes that leave their NVLink
// domain for the network, relative to all the job's bytes. 0 elsewhere.
ScorerPtr MakeNvlinkEgressScorer();
// On such fabrics: change in the number of partly used NVLink domains, as the block
// fragmentation scorer counts blocks. 0 elsewhere.
ScorerPtr MakeNvlinkFragmentationScorer();
// The job's predicted step time on the candidate (PlacementContext::comm), as the share of
// it that is communication: what the bytes cost the job itself, by the model the simulator
// runs it by. 0 where the context has no comm model.
ScorerPtr MakeStepTimeScorer();
// The same share, with the network part timed as the shared-link model times a job alone:
// by its busiest cable (BusiestCableSeconds over the candidate's fluid link loads), where
// the step-time scorer spreads each tier's bytes evenly over all ranks. It sees traffic
// that only a few NICs or uplinks carry (a DP group split between two racks). 0 where the
// context has no comm model, or at weight 0 (no links walked).
ScorerPtr MakeLinkStepScorer();

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_SCORERS_BUILTIN_SCORERS_H_
