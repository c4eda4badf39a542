// The event loop of one simulation run (simulator.h says what it models): one replay of
// a trace under one policy, holding the run's mutable state. Its parts: replay.cc runs
// the clock, the queue, starts and ends; replay_disruptions.cc applies faults, preemption
// and look-ahead. The rules they follow live in their own files: queue_rules.h,
// shared_progress.h, fault_timeline.h, look_ahead.h, job_progress.h.
//
// For Simulator::Run only (simulator.cc). Not thread-safe; one Replay per run.
#ifndef TOPOPLACE_SCHEDULER_SIM_REPLAY_H_
#define TOPOPLACE_SCHEDULER_SIM_REPLAY_H_

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/load/uplink_tally.h"
#include "scheduler/placement/engine.h"
#include "scheduler/sim/cluster_state.h"
#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/fault_timeline.h"
#include "scheduler/sim/job_progress.h"
#include "scheduler/sim/shared_progress.h"
#include "scheduler/sim/sim_result.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/trace.h"
#include "scheduler/state/slurm_block_fragmentation.h"
#include "scheduler/steptime/comm_model.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

class Replay {
 public:
  Replay(FabricPtr fabric, const PlacementEngine& engine, const CommModel& comm,
         const SimOptions& options, const Trace& trace, const std::string& policy);

  // Replays the whole trace (once per Replay): the simulator's result.
  absl::StatusOr<SimResult> Run();

 private:
  // Why a running job was stopped before its end.
  enum class StopCause : uint8_t { kFault, kPreemption };

  // Integrates the fragmentation sample of the previous pass up to `now`.
  void AdvanceClock(double now);

  // A step of the busy-GPU function at `now` (one per instant).
  void RecordBusy(double now);

  // Job j arrives: queued (and its max_wait expiry noted), or rejected when it cannot
  // fit even the empty fabric.
  void Arrive(size_t j);

  int64_t Priority(size_t j) const { return trace_.jobs[j].spec.priority; }

  // Puts job j into the queue (queue_rules.h).
  void Enqueue(size_t j, bool returning);

  // The job's max_wait where it matters: a hard max_tier narrower than the cluster.
  static std::optional<double> MaxWait(const JobSpec& spec);

  // Job j leaves the queue unplaced, for `reason`.
  void Reject(size_t j, std::string reason);

  // The running job that ends first ends at `now`.
  void Finish(double now);

  // Takes job j, already out of running_, off the cluster at `now` (it ended or was
  // interrupted).
  void Stop(size_t j, double now);

  // Job j's work left to run at its next start: the restart, if any, and what its last
  // checkpoint did not save (seconds at reference speed).
  double WorkLeft(size_t j) const;

  // Whether job j still has a max_wait expiry ahead (then it may fit relaxed later even on
  // an idle cluster).
  bool WaitsForExpiry(size_t j) const;

  // Moves running jobs whose ends the link sharing moved.
  void Reschedule(const std::vector<EndMove>& moved);

  // Tries to place job j now. nullopt when it does not fit (a verdict, remembered until
  // the next release); an error status when the engine reports anything else.
  absl::StatusOr<std::optional<PlacementPlan>> TryPlace(size_t j, double now);

  // Sets request_ for job j at `now`.
  void PrepareRequest(size_t j, double now);

  // How long job j would run on `plan` by the per-job model.
  double RunSeconds(size_t j, const PlacementPlan& plan);

  // Job j starts on `plan` at `now`: its GPUs held, its record filled, its end scheduled.
  void Start(size_t j, const PlacementPlan& plan, double now);

  // Adds (sign +1) or takes away (-1) job j's offered bytes per second on the uplinks it
  // climbs, and refreshes the busy shares in the request.
  void OfferUplinks(size_t j, int sign);

  // One scheduling pass at `now`: queue heads in order, then EASY backfill.
  absl::Status SchedulePass(double now);

  // A fault begins or ends, or the policy learns that it did.
  void ApplyFaultStep(const FaultStep& step, double now);

  // The engine for what the policy knows now, built when first needed after a change (a
  // repair and a new fault at one instant, or changes while nothing waits, cost nothing).
  const PlacementEngine& Engine();

  // Interrupts every running job with a GPU on a host `element`'s failure cuts off, or
  // traffic on a link it takes down.
  void InterruptJobsOn(const FaultElement& element, double now);

  // Useful work of running job j by `now` and the part its last checkpoint saved (seconds
  // at reference speed): stopping it now loses the difference.
  std::pair<double, double> UsefulAndSaved(size_t j, double now) const;

  // Job j loses the work since its last checkpoint and goes back into the queue, in front
  // of its priority class.
  void Interrupt(size_t j, double now, StopCause cause);

  // Preemption for the queue's head, which cannot be placed now (SimPreemption). Tried
  // once per release epoch. True if the head started.
  absl::StatusOr<bool> PreemptFor(size_t head, double now);

  // Marks busy the free GPUs of the blocks kept for the waiting jobs that need one (if not
  // already): one block per such job, those that will be whole free soonest by the
  // running jobs' known end times (as EASY backfill reads them; then in block order), so
  // that they drain towards a whole block instead of being filled by others. A change of
  // the kept set counts as a release (what fits has changed).
  void KeepBlocks();

  // Frees the kept blocks again (before a job that needs one is tried, and after a pass).
  void ReleaseKeptBlocks();

  // Gives every link whose capacity share moved its new capacity, and the jobs on it their
  // new rates.
  void ApplyCapacity(double now);

  // Whether a head that cannot be placed on the idle fabric now could be once every fault
  // it knows of is repaired (then it waits for the repair instead of being rejected).
  bool FitsOnceRepaired(size_t j);

  int64_t FragmentedGpus() const;

  FabricPtr fabric_;
  const PlacementEngine& base_engine_;  // no faults
  const PlacementEngine* engine_;       // base_engine_, or faulted_engine_ while faults are known
  std::unique_ptr<PlacementEngine> faulted_engine_;
  bool engine_stale_ = false;  // known_ changed since engine_ was built
  const CommModel& comm_;
  const SimOptions& options_;
  const Trace& trace_;
  ClusterState state_;
  const SlurmBlockLayout slurm_blocks_;  // for Slurm's fragmentation metric
  PlacementRequest request_;
  SimResult result_;
  std::list<size_t> queue_;                       // waiting jobs, arrival order
  std::set<std::pair<double, size_t>> running_;   // (end time, job), earliest first
  std::set<std::pair<double, size_t>> expiries_;  // (arrival + max_wait, job) of waiting jobs
  std::vector<std::vector<GpuId>> allocations_;   // GPUs of each running job
  std::vector<int64_t> failed_epoch_;             // release epoch of the last failed try
  std::vector<int64_t> preempt_epoch_;            // release epoch of the last preemption try
  std::vector<StopCause> last_stop_;              // per job, why it was last stopped
  // Look-ahead: per job whether it needs a whole block (empty without look-ahead), the
  // blocks kept last, and whether they are marked busy now.
  std::vector<bool> needs_block_;
  std::vector<int32_t> kept_blocks_;
  std::vector<GpuId> kept_gpus_;  // marked busy while blocks_kept_
  bool blocks_kept_ = false;
  std::optional<SharedProgress> shared_;  // with shared_links only
  // With load_aware: per link its lower switch (-1 for NIC cables and same-tier links),
  // per switch its uplink capacity and the bytes/s running jobs offer it, per job what it
  // offers where.
  std::optional<UplinkTally> uplinks_;          // --load-aware only
  std::vector<UplinkTally::Offer> offered_;     // per job
  std::vector<JobProgress> progress_;           // per job
  std::vector<std::vector<LinkId>> job_links_;  // per running job with faults: links crossed
  // Faults: what is broken (actual_) and what this policy knows of it (known_), and the
  // steps that change them, in time order.
  std::vector<FaultStep> fault_steps_;
  size_t next_fault_ = 0;
  FaultState actual_, known_;
  const bool watches_links_;
  // Whether the engine is told the jobs to come (request_.outlook, filled before every
  // try): on fabrics whose NVLink domains span hosts, the only ones a policy reads it on
  // (policies/fragment_yield.h), so that elsewhere no try pays for it.
  const bool tells_outlook_;
  int64_t release_epoch_ = 0;
  double clock_ = -1;
  int64_t fragmented_now_ = 0;
  int64_t slurm_fragmentation_now_ = 0;
  bool head_blocked_now_ = false;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_REPLAY_H_
