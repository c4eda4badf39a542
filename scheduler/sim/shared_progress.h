// Running jobs that share links (SimOptions::shared_links): each job's traffic lands on
// the cables it crosses, every cable direction is shared max-min fairly (link_sharing.h),
// and each job's remaining work advances at the rate its share allows, never faster than
// its reference placement. A start, a stop or a capacity change moves the rates of the
// jobs linked to it through shared cables (shares decompose over such groups); the
// caller's event queue learns whose end moved.
//
//   SharedProgress shared(fabric, comm, jobs);
//   for (const EndMove& m : shared.Start(j, spec, plan, ref, work, end, now)) ...reschedule m...
//
// Not thread-safe.
#ifndef TOPOPLACE_SCHEDULER_SIM_SHARED_PROGRESS_H_
#define TOPOPLACE_SCHEDULER_SIM_SHARED_PROGRESS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/job/job_spec.h"
#include "scheduler/placement/engine.h"
#include "scheduler/sim/cable_resources.h"
#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/link_sharing.h"
#include "scheduler/steptime/comm_model.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// A running job's end moved from `from` to `to` (seconds).
struct EndMove {
  size_t job = 0;
  double from = 0, to = 0;
};

class SharedProgress {
 public:
  // For jobs 0..jobs-1 on `fabric`, stepped by `comm`; both must outlive this.
  SharedProgress(const Fabric& fabric, const CommModel& comm, size_t jobs);

  // Job j starts at `now` on `plan` with `work` seconds left at reference speed (its
  // reference step `reference_s` seconds long: reference_step.h), ending at `end` on its
  // own. A plan without links is not tracked (it runs at rate 1). Returns every job whose
  // end moved, j included.
  std::vector<EndMove> Start(size_t j, const JobSpec& spec, const PlacementPlan& plan,
                             double reference_s, double work, double end, double now);
  // Job j stops (ended or interrupted) at `now`; the jobs it shared cables with speed up.
  std::vector<EndMove> Stop(size_t j, double now);
  // The cables of `links` take the capacity share `faults` gives them now.
  std::vector<EndMove> SetCapacity(const std::vector<LinkId>& links, const FaultState& faults,
                                   double now);

  // Whether job j runs with links (started with some and not stopped).
  bool tracked(size_t j) const { return jobs_[j].tracked; }
  // A tracked job's end as it stands (its key in the caller's event queue).
  double end(size_t j) const { return jobs_[j].end; }
  // A tracked job's work done per second now (at most 1: never faster than its reference).
  double rate(size_t j) const { return jobs_[j].rate; }
  // A tracked job's work done of its run by `now` (seconds at reference speed).
  double WorkDone(size_t j, double now) const;

 private:
  struct Job {
    const JobSpec* spec = nullptr;
    double compute_s = 0;    // seconds of compute per iteration
    DimSeconds nvlink_s{};   // per dimension, NVLink seconds per iteration (not shared)
    DimSeconds net_share{};  // per dimension, its part of the job's network bytes
    double reference_s = 0;  // seconds per iteration of the trace's reference placement
    double work = 0;         // the run's work
    double remaining = 0;    // work left
    double rate = 1;         // work done per second now
    double since = 0;        // when `remaining` was last brought up to date
    double end = 0;
    bool tracked = false;
  };
  // Brings the jobs whose shares `changed` can move up to `now` at their old rates, then
  // gives them their new rates and ends.
  std::vector<EndMove> Rebalance(double now, const std::vector<int64_t>& changed);

  const CommModel& comm_;
  CableResources cables_;
  LinkSharing sharing_;
  std::vector<Job> jobs_;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_SHARED_PROGRESS_H_
