// The per-task environment a placed job sees: which of the plan's ranks a Slurm task
// runs, their GPUs in rank order and their NICs for NCCL.
//
//   TP_ASSIGN_OR_RETURN(TaskEnv env, TaskEnvironment(plan, "alloc-3", "b00-n001", map, 2, 8));
//   for (const auto& [name, value] : env) spank_setenv(sp, name.c_str(), value.c_str(), 1);
//
// The node's ranks (in rank order) are split evenly over its local tasks: with one task
// per GPU each task gets one rank, with one task per node (a launcher like torchrun) it
// gets them all. Pure function; thread-safe.
#ifndef TOPOPLACE_PLUGINS_SLURM_SPANK_TASK_ENV_H_
#define TOPOPLACE_PLUGINS_SLURM_SPANK_TASK_ENV_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "plugins/common/node_name_map.h"
#include "plugins/slurm/spank/plan_view.h"

namespace topoplace::slurm {

using TaskEnv = std::vector<std::pair<std::string, std::string>>;

// Variables for local task `local_task` of `local_tasks` on Slurm node `node_name`:
//   TOPOPLACE_PLAN_ID      the allocation id
//   TOPOPLACE_NODE_RANK    the node's index in the plan's host order
//   TOPOPLACE_RANKS        the task's global ranks, comma-separated, ascending
//   TOPOPLACE_RANK         the global rank, when the task has exactly one
//   CUDA_VISIBLE_DEVICES   the ranks' local GPU indices, in rank order
//   NCCL_IB_HCA            "=nic[,nic]" (exact match), the ranks' NICs in rank order
//                          without repeats; absent when the plan names no NIC
// Preconditions: 0 <= local_task < local_tasks. NotFound if the node is not in the plan;
// FailedPrecondition if its ranks cannot be split evenly over `local_tasks`.
absl::StatusOr<TaskEnv> TaskEnvironment(const PlanView& plan, absl::string_view plan_id,
                                        absl::string_view node_name,
                                        const plugins::NodeNameMap& node_map, int local_task,
                                        int local_tasks);

}  // namespace topoplace::slurm

#endif  // TOPOPLACE_PLUGINS_SLURM_SPANK_TASK_ENV_H_
