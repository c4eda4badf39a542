#include "scheduler/placement/candidate_shapes.h"

#include "absl/strings/str_cat.h"
#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {

absl::StatusOr<CandidateShapes> CheckShapes(const Fabric& fabric, const Inventory& inv,
                                            const JobSpec& job, absl::string_view policy,
                                            std::vector<Candidate>& candidates) {
  const size_t nodes = static_cast<size_t>(job.nodes());
  CandidateShapes out;
  out.same_as.assign(candidates.size(), -1);
  out.rejected.resize(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    Candidate& cand = candidates[i];
    if (cand.node_hosts.size() != nodes) {
      return absl::InternalError(absl::StrCat(
          "policy ", policy, " proposed ", cand.node_hosts.size(), " hosts for ", nodes, " nodes"));
    }
    if (inv.nvlink_level() && TpDomainViolation(fabric, inv, job, cand.node_hosts)) {
      GroupByNvlinkDomain(fabric, cand.node_hosts);
    }
    if (std::optional<std::string> split = TpDomainViolation(fabric, inv, job, cand.node_hosts)) {
      out.rejected[i] = absl::StrCat(cand.how, ": ", *split);
      continue;
    }
    for (size_t k : out.order) {
      if (candidates[k].node_hosts == cand.node_hosts) {
        out.same_as[i] = static_cast<int>(k);
        break;
      }
    }
    out.order.push_back(i);
  }
  return out;
}

}  // namespace topoplace::sched
