#include "plugins/slurm/spank/task_env.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace topoplace::slurm {

absl::StatusOr<TaskEnv> TaskEnvironment(const PlanView& plan, absl::string_view plan_id,
                                        absl::string_view node_name,
                                        const plugins::NodeNameMap& node_map, int local_task,
                                        int local_tasks) {
  if (local_tasks <= 0 || local_task < 0 || local_task >= local_tasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("local task ", local_task, " of ", local_tasks, " is out of range"));
  }
  auto host = std::find_if(plan.hosts.begin(), plan.hosts.end(),
                           [&](const std::string& h) { return node_map.NodeName(h) == node_name; });
  if (host == plan.hosts.end()) {
    return absl::NotFoundError(absl::StrCat("node ", node_name, " is not in plan ", plan_id));
  }
  std::vector<const PlanRank*> node_ranks;
  for (const PlanRank& r : plan.ranks) {
    if (r.host == *host) node_ranks.push_back(&r);
  }
  const int per_task = static_cast<int>(node_ranks.size()) / local_tasks;
  if (per_task == 0 || node_ranks.size() % local_tasks != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", node_name, " has ", node_ranks.size(), " ranks in plan ", plan_id,
                     "; they do not split evenly over ", local_tasks, " tasks"));
  }
  std::vector<int> ranks, gpus;
  std::vector<std::string> nics;
  for (int i = local_task * per_task; i < (local_task + 1) * per_task; ++i) {
    const PlanRank& r = *node_ranks[i];
    ranks.push_back(r.rank);
    gpus.push_back(r.gpu);
    if (!r.nic.empty() && std::find(nics.begin(), nics.end(), r.nic) == nics.end()) {
      nics.push_back(r.nic);
    }
  }
  TaskEnv env;
  env.emplace_back("TOPOPLACE_PLAN_ID", std::string(plan_id));
  env.emplace_back("TOPOPLACE_NODE_RANK", absl::StrCat(host - plan.hosts.begin()));
  env.emplace_back("TOPOPLACE_RANKS", absl::StrJoin(ranks, ","));
  if (ranks.size() == 1) env.emplace_back("TOPOPLACE_RANK", absl::StrCat(ranks[0]));
  env.emplace_back("CUDA_VISIBLE_DEVICES", absl::StrJoin(gpus, ","));
  if (!nics.empty()) env.emplace_back("NCCL_IB_HCA", absl::StrCat("=", absl::StrJoin(nics, ",")));
  return env;
}

}  // namespace topoplace::slurm
