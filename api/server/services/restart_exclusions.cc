#include "api/server/services/restart_exclusions.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/server/services/telemetry_path_view.h"
#include "telemetry/health/job_path.h"

namespace topoplace::server {

absl::Status ExcludeWhatFailed(const Fabric& fabric, store::Ledger& ledger,
                               const telemetry::HealthMonitor* health, sched::JobSpec& job) {
  if (job.replace_on_restart.empty()) return absl::OkStatus();
  absl::StatusOr<ledger::Allocation> old = ledger.Get(job.replace_on_restart);
  if (absl::IsNotFound(old.status())) {
    return absl::InvalidArgumentError(absl::StrCat("job_spec: replace_on_restart: no allocation '",
                                                   job.replace_on_restart, "' in the ledger"));
  }
  if (!old.ok()) return old.status();
  if (health == nullptr) return absl::OkStatus();
  const telemetry::JobPath path = telemetry::PathOfGpus(fabric, GpusOfAllocation(fabric, *old));
  for (LinkId l : path.links) {
    const Link& link = fabric.links()[l];
    const bool a_nic = link.a.kind == Endpoint::Kind::kNic;
    if (!a_nic && link.b.kind != Endpoint::Kind::kNic) continue;
    const bool failed = health->Link(l).verdict != telemetry::LinkVerdict::kHealthy ||
                        health->LastTurnedBad(l) >= old->created_at;
    if (!failed) continue;
    const std::string& host = fabric.hosts()[fabric.nics()[(a_nic ? link.a : link.b).id].host].name;
    if (std::find(job.exclude.begin(), job.exclude.end(), host) == job.exclude.end()) {
      job.exclude.push_back(host);
    }
  }
  return absl::OkStatus();
}

}  // namespace topoplace::server
