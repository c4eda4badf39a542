// What a restarted job stays away from (the job spec's replace_on_restart=alloc-N): the
// hosts of the interrupted run whose NIC cables are unhealthy now, or turned degraded or
// down after that run's allocation was made (a cable that failed and came back: a
// flapping cable or a reseated one, not trusted with the restart). They join the exclude
// list of the placement (not of the job spec the ledger records, which stays as the client
// sent it, so that a retried Reserve still replays). Uplinks above the
// leaves are the engine's to avoid while they are unhealthy (its health view); one that
// failed and recovered is not held against its block.
//
//   TP_RETURN_IF_ERROR(ExcludeWhatFailed(fabric, *ledger, health, placement.job));
//
// Thread-safe if the ledger is.
#ifndef TOPOPLACE_API_SERVER_SERVICES_RESTART_EXCLUSIONS_H_
#define TOPOPLACE_API_SERVER_SERVICES_RESTART_EXCLUSIONS_H_

#include "absl/status/status.h"
#include "scheduler/job/job_spec.h"
#include "store/ports/ledger.h"
#include "telemetry/monitor/health_monitor.h"
#include "topology/model/fabric.h"

namespace topoplace::server {

// No-op when job.replace_on_restart is empty. `health` may be null (no link health: only
// hosts the engine already knows to be unusable stay out). InvalidArgument naming
// replace_on_restart when the ledger has no such allocation; the ledger's error otherwise.
absl::Status ExcludeWhatFailed(const Fabric& fabric, store::Ledger& ledger,
                               const telemetry::HealthMonitor* health, sched::JobSpec& job);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_RESTART_EXCLUSIONS_H_
