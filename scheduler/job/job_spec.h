// The job spec of the docs/DESIGN.md contract: PTD-P degrees, GPUs per node, the model shape or
// explicit bytes, and placement constraints, parsed from one string:
//
//   TP_ASSIGN_OR_RETURN(JobSpec job, ParseJobSpec("tp=8,pp=4,dp=16,model=70b,max_tier=pod"));
//
// Keys: tp pp dp cp ep (degrees, default 1), gpus (total, optional cross-check),
// gpus_per_node (default 8), tp_across_nodes=0|1, order=tp-cp-ep-dp-pp|tp-cp-ep-pp-dp,
// model=<preset> or h= s= b= layers= params= (e.g. 70e9 or 70b) mb= dtype=bf16|fp16|fp32|fp8,
// explicit per-device bytes per iteration tp_bytes= cp_bytes= ep_bytes= dp_bytes= pp_bytes=,
// max_tier=leaf|block|pod|cluster, mode=hard|soft, max_wait=30m (seconds, or with an s, m
// or h suffix: how long a scheduler keeps a hard max_tier before relaxing it, as Slurm's
// --switches=N@max-time), segment=N (Slurm's --segment: the job's nodes in segments of N,
// each inside one block; only slurm-block reads it), priority=N (higher is more important;
// Kubernetes' PriorityClass values and Slurm's job priorities both fit; stored with the
// allocation, for preemption), replace_on_restart=alloc-N (the allocation of
// the run this job restarts: a daemon keeps it off the hosts whose cables failed under that
// run, api/server/services/restart_exclusions.h), exclude=host[,host...], hosts=host[,host...]
// (place only on these hosts: a scheduler that already chose the nodes asks for the ranks' map on
// them) (every comma-separated token without '=' after `exclude` or `hosts` is another host of that
// list). Every error is InvalidArgument naming the field and what was expected.
#ifndef TOPOPLACE_SCHEDULER_JOB_JOB_SPEC_H_
#define TOPOPLACE_SCHEDULER_JOB_JOB_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/job/model_presets.h"

namespace topoplace::sched {

// Order in which ranks enumerate the parallel dimensions, fastest first. Megatron-LM's
// default puts TP fastest and PP slowest, so one pipeline stage is a contiguous rank range.
enum class RankOrder : uint8_t { kTpCpEpDpPp, kTpCpEpPpDp };
absl::string_view RankOrderName(RankOrder order);

// The largest domain the job may span. `nvlink`: one NVLink domain (a rack of trays where
// domains span hosts, as a multi-node NVLink workload with one IMEX domain needs; one host
// where every host is its own domain); `leaf`: one block with every network pair at most
// one leaf hop; `block`: one block; `pod`: one pod; `cluster`: anywhere. Ordered narrowest
// first.
enum class MaxTier : uint8_t { kNvlink = 0, kLeaf = 1, kBlock = 2, kPod = 3, kCluster = 4 };
absl::string_view MaxTierName(MaxTier tier);

// Hard constraints fail the placement when they cannot hold; soft ones are relaxed with a
// note on the plan.
enum class ConstraintMode : uint8_t { kHard, kSoft };

// Bytes each device sends per iteration inside one group, given explicitly instead of a
// model shape. Unset fields fall back to the model-derived volume.
struct ExplicitBytes {
  std::optional<double> tp, cp, ep, dp, pp;
  bool any() const { return tp || cp || ep || dp || pp; }
};

struct JobSpec {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  int gpus_per_node = 8;
  // Allow TP groups to leave an NVLink domain. Without it, tp divides gpus_per_node or is
  // a multiple of it, and the engine keeps each TP group inside one domain.
  bool tp_across_nodes = false;
  RankOrder order = RankOrder::kTpCpEpDpPp;
  ModelShape model;
  ExplicitBytes bytes;
  MaxTier max_tier = MaxTier::kCluster;
  ConstraintMode mode = ConstraintMode::kHard;
  // Seconds a scheduler waits for a placement inside max_tier (and, on fabrics whose
  // NVLink domains span hosts, for a domain that holds each TP x CP x EP group) before
  // placing the job as if mode were soft; unset: both hold for as long as the job waits. The engine
  // itself places by `mode`: the caller that knows how long the job has waited applies
  // this (the simulator does).
  std::optional<double> max_wait_s;
  // Slurm's --segment: nodes per segment, each placed inside one block as if a job of its
  // own; 0 = none. A divisor of nodes(), or larger than the job (Slurm then ignores it).
  // slurm-block reads it, and kueue-bestfit as Kueue's pod-set slices of that size, each
  // inside one block (podSetSliceSize, podSetSliceRequiredTopology).
  int segment = 0;
  // Higher is more important; 0 by default, as a Kubernetes pod without a PriorityClass.
  // The range holds Kubernetes' priorities (int32) and Slurm's (uint32). Placement does
  // not read it; it is stored with the allocation for whoever chooses what to preempt.
  int64_t priority = 0;
  // The allocation id ("alloc-N") of the interrupted run this job restarts; empty: none.
  // Only a daemon acts on it (it has the ledger and the link history); the engine and
  // the offline CLI place as if it were absent.
  std::string replace_on_restart;
  std::vector<std::string> exclude;  // host names
  std::vector<std::string> hosts;    // if not empty, the only hosts the job may use

  // tp * cp * ep * dp * pp.
  int64_t world_size() const { return int64_t{tp} * cp * ep * dp * pp; }
  // GPUs of one TP x CP x EP group: the dimensions that move the most bytes, which
  // placement keeps inside one NVLink domain.
  int64_t group_gpus() const { return int64_t{tp} * cp * ep; }
  // Number of nodes (hosts) the job occupies: world_size / gpus_per_node.
  int64_t nodes() const { return world_size() / gpus_per_node; }
};

// The range of `priority`: Kubernetes' int32 PriorityClass values (system classes reach
// 2,000,001,000) and Slurm's uint32 job priorities.
inline constexpr int64_t kMinPriority = -(int64_t{1} << 31);
inline constexpr int64_t kMaxPriority = (int64_t{1} << 32) - 1;

// Parses and validates `spec`. InvalidArgument names the field, e.g.
// "job spec field 'tp': expected an integer >= 1, got 'x'".
absl::StatusOr<JobSpec> ParseJobSpec(absl::string_view spec);

// The spec's keys as a Markdown table (key, value, default), from the table ParseJobSpec
// reads them by: docs/DESIGN.md's "Job spec" table is this text (a test checks it).
std::string JobSpecKeysTable();

// Checks the cross-field rules: degrees >= 1, world size a multiple of gpus_per_node,
// tp divides gpus_per_node or is a multiple of it (unless tp_across_nodes), sizes in range.
// ParseJobSpec calls it; callers that build a JobSpec by hand should too.
absl::Status ValidateJobSpec(const JobSpec& job);

// The canonical spec string of `job` (parses back to the same JobSpec).
std::string FormatJobSpec(const JobSpec& job);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_JOB_JOB_SPEC_H_
