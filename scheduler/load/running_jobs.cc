#include "scheduler/load/running_jobs.h"

#include "scheduler/job/job_spec.h"

namespace topoplace::sched {

std::vector<RunningJob> RunningJobs(const Fabric& fabric, store::Ledger& ledger) {
  std::vector<RunningJob> running;
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    RunningJob job;
    job.id = a.id;
    if (absl::StatusOr<JobSpec> spec = ParseJobSpec(a.job_spec); spec.ok()) {
      job.priority = spec->priority;
    }
    for (const ledger::GpuRef& ref : a.gpus) {
      if (std::optional<GpuId> g = fabric.FindGpu(ref.host, ref.index)) job.gpus.push_back(*g);
    }
    running.push_back(std::move(job));
  });
  return running;
}

std::vector<MovableJob> MovableJobs(const Fabric& fabric, store::Ledger& ledger) {
  std::vector<MovableJob> movable;
  ledger.ForEachLive([&](const ledger::Allocation& a) {
    absl::StatusOr<JobSpec> spec = ParseJobSpec(a.job_spec);
    if (!spec.ok()) return;
    MovableJob m{{a.id, spec->priority, {}, std::nullopt}, *std::move(spec)};
    m.spec.hosts.clear();
    for (const ledger::GpuRef& ref : a.gpus) {
      if (std::optional<GpuId> g = fabric.FindGpu(ref.host, ref.index)) m.job.gpus.push_back(*g);
    }
    movable.push_back(std::move(m));
  });
  return movable;
}

}  // namespace topoplace::sched
