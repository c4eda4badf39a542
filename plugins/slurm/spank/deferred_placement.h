// A submission topoplace cannot place yet (its GPUs, or a hard max_tier, are not free) is
// handed to Slurm's queue instead of running unplaced: Slurm waits for the spec's node
// count and, for a hard leaf or block tier, for one leaf switch of the exported tree (our
// blocks are its leaf switches) for at most max_wait, as `--switches=1@max_wait`; when the
// job starts, its ranks are mapped onto the nodes Slurm gave it (StartSpec).
//
// sbatch reads its options before a SPANK option callback runs, so Slurm learns the node
// count and the switch request from the job control variables below, through
// deploy/slurm/job_submit.lua. Pure functions; thread-safe.
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_DEFERRED_PLACEMENT_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_DEFERRED_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plugins/common/node_name_map.h"

namespace topoplace::slurm {

// Job control variables (prolog, epilog and job_submit.lua see them with SPANK_ before
// the name, the job's steps with SLURM_SPANK_).
inline constexpr char kDeferredSpecVar[] = "TOPOPLACE_DEFERRED_SPEC";
inline constexpr char kNodesVar[] = "TOPOPLACE_NODES";
inline constexpr char kSwitchesVar[] = "TOPOPLACE_SWITCHES";
inline constexpr char kSegmentVar[] = "TOPOPLACE_SEGMENT";

struct DeferredSubmission {
  std::string spec;  // canonical job spec
  int64_t nodes = 0;
  // Slurm's --switches value: "" (no switch limit), "1" (one leaf switch for as long as
  // Slurm's max_switch_wait allows) or "1@SECONDS".
  std::string switches;
  // Slurm's --segment (topology/block, Slurm 25.05+): the spec's segment=N when it splits
  // the job (0 < N < nodes); without one, the nodes of one TP x CP x EP group when the
  // groups span nodes and split the job evenly; 0: none. job_submit.lua sets it unless the
  // user gave one.
  int64_t segment = 0;

  // The job control variables that carry it, as (name, value).
  std::vector<std::pair<std::string, std::string>> ControlVariables() const;
  // One line for the submitting user: what Slurm will wait for.
  std::string Summary() const;
};

// The deferral of `spec` (a job spec as --topoplace takes it). InvalidArgument for a bad
// spec.
absl::StatusOr<DeferredSubmission> DeferSubmission(absl::string_view spec);

// What maps a started job's ranks onto the nodes Slurm gave it: the spec with mode=soft
// (Slurm already held the tier for as long as it could), and the nodes beside it, for the
// request's hosts field: inline as hosts= a job of ~460 nodes passed the spec's 4 KiB and
// ran without a plan (hardening finding 8).
struct StartPlacement {
  std::string spec;
  std::vector<std::string> hosts;  // fabric host names, in the node list's order
};

// The start placement of `spec` on the nodes of `nodelist` (a Slurm hostlist such as
// SLURM_JOB_NODELIST), named as the fabric names them. InvalidArgument for a bad spec or
// hostlist.
absl::StatusOr<StartPlacement> StartSpec(absl::string_view spec, absl::string_view nodelist,
                                         const plugins::NodeNameMap& node_map);

// The task count of a deferred job's batch script: its nodes (SLURM_JOB_NUM_NODES) times
// --ntasks-per-node (SLURM_NTASKS_PER_NODE), or nullopt unless both are positive integers.
std::optional<int64_t> DeferredTaskCount(absl::string_view job_num_nodes,
                                         absl::string_view ntasks_per_node);

// The idempotency key of a started job's placement: every node's prolog, every step and
// the epilog ask with it and get the same allocation.
std::string StartRequestId(uint32_t job_id);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_DEFERRED_PLACEMENT_H_
