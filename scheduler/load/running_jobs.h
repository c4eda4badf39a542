// The jobs a ledger holds GPUs for, as the preemption search sees them (issue 34): each
// live allocation's id, the priority its job spec names and its GPUs. The work each would
// lose is not known to the ledger (no checkpoint times), so it is left unknown and the
// search counts victims instead.
//
//   std::vector<RunningJob> running = RunningJobs(fabric, ledger);
//   PlanPreemption(engine, request, ledger.Occupancy(), running);
//
// Reads the ledger under its lock (ForEachLive); thread-safe as the ledger is.
#ifndef TOPOPLACE_SCHEDULER_LOAD_RUNNING_JOBS_H_
#define TOPOPLACE_SCHEDULER_LOAD_RUNNING_JOBS_H_

#include <vector>

#include "scheduler/placement/defrag.h"
#include "scheduler/placement/preemption.h"
#include "store/ports/ledger.h"
#include "topology/model/fabric.h"

namespace topoplace::sched {

// Live allocations in the ledger's order. GPUs the fabric no longer has are left out; a
// stored job spec that does not parse (none should: the ledger stores canonical ones)
// counts as priority 0.
std::vector<RunningJob> RunningJobs(const Fabric& fabric, store::Ledger& ledger);

// The same jobs with their specs, for defragmentation (scheduler/placement/defrag.h). A
// move restarts a job wherever there is room, so the spec's `hosts=` (the nodes a scheduler
// chose for the run that is moved) is dropped. Allocations whose spec does not parse are
// left out: they cannot be placed again.
std::vector<MovableJob> MovableJobs(const Fabric& fabric, store::Ledger& ledger);

}  // namespace topoplace::sched

#endif  // TOPOPLACE_SCHEDULER_LOAD_RUNNING_JOBS_H_
