// libFuzzer target for what the SPANK plugin reads (plugins/slurm/spank/): its plugstack
// arguments (one per line here), the plan JSON the daemon returns, and a node map file.
// Any bytes must give a value or an error, never a crash: a crash here is a crash of
// sbatch, srun or slurmstepd.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "plugins/common/node_name_map.h"
#include "plugins/slurm/spank/deferred_placement.h"
#include "plugins/slurm/spank/plan_view.h"
#include "plugins/slurm/spank/spank_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> args = absl::StrSplit(text, '\n');
  (void)topoplace::slurm::ParseSpankArgs(args);
  (void)topoplace::slurm::ParsePlanJson(text);
  (void)topoplace::plugins::NodeNameMap::Parse(text, "fuzz");
  (void)topoplace::slurm::ParseTopoplaceOption(text);
  (void)topoplace::slurm::DeferSubmission(text);  // the spec's deferral (segments included)
  return 0;
}
