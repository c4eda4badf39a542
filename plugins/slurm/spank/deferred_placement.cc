#include "plugins/slurm/spank/deferred_placement.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "plugins/common/node_list.h"
#include "plugins/slurm/spank/spank_config.h"
#include "scheduler/job/job_spec.h"

namespace topoplace::slurm {

std::vector<std::pair<std::string, std::string>> DeferredSubmission::ControlVariables() const {
  std::vector<std::pair<std::string, std::string>> vars = {{kDeferredSpecVar, spec},
                                                           {kNodesVar, absl::StrCat(nodes)}};
  if (!switches.empty()) vars.emplace_back(kSwitchesVar, switches);
  if (segment > 0) vars.emplace_back(kSegmentVar, absl::StrCat(segment));
  return vars;
}

std::string DeferredSubmission::Summary() const {
  std::string wait = "anywhere";
  if (switches == "1") {
    wait = "inside one block (Slurm's max_switch_wait bounds the wait)";
  } else if (!switches.empty()) {
    wait = absl::StrCat("inside one block for at most ", switches.substr(2), " s");
  }
  const std::string segments =
      segment > 0 ? absl::StrCat(" in segments of ", segment, " nodes (--segment=", segment, ")")
                  : "";
  return absl::StrCat("topoplace: no placement now; Slurm queues the job for ", nodes, " nodes ",
                      wait, " (--switches=", switches.empty() ? "none" : switches, ")", segments,
                      ", and maps its ranks onto the nodes it starts on");
}

absl::StatusOr<DeferredSubmission> DeferSubmission(absl::string_view spec) {
  TP_ASSIGN_OR_RETURN(sched::JobSpec job, ParseTopoplaceOption(spec));
  DeferredSubmission deferred;
  deferred.spec = sched::FormatJobSpec(job);
  deferred.nodes = job.nodes();
  if (job.segment > 0 && job.segment < deferred.nodes) {
    deferred.segment = job.segment;
  } else if (job.segment == 0) {
    // The job's TP x CP x EP groups, when they span nodes, as Slurm's segments: on
    // topology/block each lands inside one base block (an NVLink rack in our export), as
    // topoplace keeps them inside one NVLink domain.
    const int64_t group_gpus = job.group_gpus();
    const int64_t group_nodes = group_gpus / job.gpus_per_node;
    if (group_gpus % job.gpus_per_node == 0 && group_nodes > 1 && group_nodes < deferred.nodes &&
        deferred.nodes % group_nodes == 0) {
      deferred.segment = group_nodes;
    }
  }
  // Slurm counts leaf switches, which are our blocks: a leaf or block tier is one switch.
  // A pod is no switch count, so Slurm cannot hold it; the plan at start notes the relaxing.
  if (job.mode == sched::ConstraintMode::kHard && job.max_tier <= sched::MaxTier::kBlock) {
    deferred.switches =
        job.max_wait_s ? absl::StrCat("1@", static_cast<int64_t>(std::ceil(*job.max_wait_s))) : "1";
  }
  return deferred;
}

absl::StatusOr<StartPlacement> StartSpec(absl::string_view spec, absl::string_view nodelist,
                                         const plugins::NodeNameMap& node_map) {
  TP_ASSIGN_OR_RETURN(sched::JobSpec job, ParseTopoplaceOption(spec));
  absl::StatusOr<std::vector<std::string>> nodes =
      plugins::ParseNodeList(nodelist, "the job's node list");
  if (!nodes.ok()) return absl::InvalidArgumentError(nodes.status().message());
  job.mode = sched::ConstraintMode::kSoft;
  job.hosts.clear();
  StartPlacement start;
  start.spec = sched::FormatJobSpec(job);
  start.hosts.reserve(nodes->size());
  for (const std::string& node : *nodes) start.hosts.push_back(node_map.HostName(node));
  return start;
}

std::optional<int64_t> DeferredTaskCount(absl::string_view job_num_nodes,
                                         absl::string_view ntasks_per_node) {
  int64_t nodes = 0, per_node = 0;
  if (!absl::SimpleAtoi(job_num_nodes, &nodes) || !absl::SimpleAtoi(ntasks_per_node, &per_node) ||
      nodes < 1 || per_node < 1 || nodes > (int64_t{1} << 31) || per_node > (1 << 16)) {
    return std::nullopt;
  }
  return nodes * per_node;
}

std::string StartRequestId(uint32_t job_id) { return absl::StrCat("slurm-start:", job_id); }

}  // namespace topoplace::slurm
