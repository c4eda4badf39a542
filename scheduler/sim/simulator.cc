#include "scheduler/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <list>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/builtin/builtin_plugins.h"
#include "scheduler/load/uplink_tally.h"
#include "scheduler/placement/preemption.h"
#include "scheduler/policies/topoplace_policy.h"
#include "scheduler/sim/cable_resources.h"
#include "scheduler/sim/cluster_state.h"
#include "scheduler/sim/fault_state.h"
#include "scheduler/sim/fault_timeline.h"
#include "scheduler/sim/job_progress.h"
#include "scheduler/sim/link_sharing.h"
#include "scheduler/sim/look_ahead.h"
#include "scheduler/sim/queue_rules.h"
#include "scheduler/state/slurm_block_fragmentation.h"
#include "topology/base/status_macros.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One replay of a trace under one policy: the mutable state of the event loop.
class Replay {
 public:
  Replay(FabricPtr fabric, const PlacementEngine& engine, const CommModel& comm,
         const SimOptions& options, const Trace& trace, const std::string& policy)
      : fabric_(std::move(fabric)),
        base_engine_(engine),
        engine_(&engine),
        comm_(comm),
        options_(options),
        trace_(trace),
        state_(engine.fabric()),
        slurm_blocks_(SlurmBlockLayoutOf(engine.fabric())),
        allocations_(trace.jobs.size()),
        failed_epoch_(trace.jobs.size(), -1),
        preempt_epoch_(trace.jobs.size(), -1),
        last_stop_(trace.jobs.size(), StopCause::kFault),
        progress_(trace.jobs.size()),
        job_links_(trace.jobs.size()),
        actual_(engine.fabric()),
        known_(engine.fabric()),
        watches_links_(WatchesLinkHealth(policy) && !options.faults.ignore_link_health) {
    result_.policy = policy;
    result_.preemption = std::string(PreemptionModeName(options.preemption.mode));
    result_.look_ahead = options.preemption.look_ahead;
    result_.fabric = engine.fabric().name();
    result_.trace = trace.source;
    result_.total_gpus = state_.total_gpus();
    result_.jobs.resize(trace.jobs.size());
    for (size_t j = 0; j < trace.jobs.size(); ++j) {
      const TraceJob& tj = trace.jobs[j];
      JobRecord& r = result_.jobs[j];
      r.id = tj.id;
      r.gpus = tj.spec.world_size();
      r.nodes = tj.spec.nodes();
      r.arrival_s = tj.arrival_s;
      r.duration_s = tj.duration_s;
      r.priority = tj.spec.priority;
    }
    if (options.preemption.look_ahead) needs_block_ = JobsNeedingABlock(engine.fabric(), trace);
    request_.policy = policy;
    request_.routing.rail_local = options.rail_local;
    if (options.load_aware) {
      request_.link_loads = true;
      uplinks_.emplace(engine.fabric());
      request_.uplink_busy = uplinks_->busy();
      offered_.resize(trace.jobs.size());
    }
    if (options.shared_links) {
      request_.link_loads = true;
      cables_.emplace(engine.fabric());
      sharing_.emplace(cables_->capacity());
      shared_.resize(trace.jobs.size());
    }
    if (options.faults.schedule) {
      result_.faults = options.faults.schedule->source;
      fault_steps_ = FaultTimeline(*options.faults.schedule, actual_, watches_links_,
                                   options.faults.detect_s, options.faults.recover_s);
    }
  }

  absl::StatusOr<SimResult> Run() {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t n = trace_.jobs.size();
    size_t next_arrival = 0;
    result_.busy_steps.push_back({n > 0 ? trace_.jobs[0].arrival_s : 0, 0});
    // Faults go on while jobs wait for a repair (a waiting job that no fault holds back is
    // waiting for a release, an arrival or an expiry).
    while (next_arrival < n || !running_.empty() || !expiries_.empty() ||
           (!queue_.empty() && next_fault_ < fault_steps_.size())) {
      const double t_arrival = next_arrival < n ? trace_.jobs[next_arrival].arrival_s : kInf;
      const double t_end = running_.empty() ? kInf : running_.begin()->first;
      const double t_expiry = expiries_.empty() ? kInf : expiries_.begin()->first;
      const double t_fault =
          next_fault_ < fault_steps_.size() ? fault_steps_[next_fault_].time_s : kInf;
      const double now = std::min({t_arrival, t_end, t_expiry, t_fault});
      AdvanceClock(now);
      while (!running_.empty() && running_.begin()->first <= now) Finish(now);
      while (next_fault_ < fault_steps_.size() && fault_steps_[next_fault_].time_s <= now) {
        ApplyFaultStep(fault_steps_[next_fault_++], now);
      }
      while (next_arrival < n && trace_.jobs[next_arrival].arrival_s <= now) {
        Arrive(next_arrival++);
      }
      // A job whose max_wait ran out may now be placed relaxed: try it again.
      while (!expiries_.empty() && expiries_.begin()->first <= now) {
        failed_epoch_[expiries_.begin()->second] = -1;
        expiries_.erase(expiries_.begin());
      }
      TP_RETURN_IF_ERROR(SchedulePass(now));
      ReleaseKeptBlocks();
      fragmented_now_ = FragmentedGpus();
      slurm_fragmentation_now_ =
          SlurmBlockFragmentation(slurm_blocks_, base_engine_.fabric(), state_.occupancy());
      head_blocked_now_ =
          !queue_.empty() && result_.jobs[queue_.front()].gpus <= state_.free_gpus();
    }
    // Unreachable by construction (a head that cannot start on an idle cluster is
    // rejected), but no job may leave the run without an outcome.
    for (size_t j : queue_) Reject(j, "still waiting when the trace ended");
    result_.wall_seconds = SecondsSince(t0);
    return std::move(result_);
  }

 private:
  // Why a running job was stopped before its end.
  enum class StopCause : uint8_t { kFault, kPreemption };

  // Integrates the fragmentation sample of the previous pass up to `now`.
  void AdvanceClock(double now) {
    if (clock_ >= 0 && now > clock_) {
      result_.fragmented_gpu_seconds += fragmented_now_ * (now - clock_);
      result_.slurm_block_fragmentation_node_seconds += slurm_fragmentation_now_ * (now - clock_);
      if (head_blocked_now_) result_.head_blocked_seconds += now - clock_;
    }
    clock_ = now;
  }

  void RecordBusy(double now) {
    const int64_t busy = state_.busy_gpus();
    if (!result_.busy_steps.empty() && result_.busy_steps.back().time_s == now) {
      result_.busy_steps.back().busy = busy;
    } else {
      result_.busy_steps.push_back({now, busy});
    }
  }

  void Arrive(size_t j) {
    const JobSpec& spec = trace_.jobs[j].spec;
    if (!state_.FitsEmptyFabric(spec)) {
      Reject(j, absl::StrCat("needs ", spec.nodes(), " hosts with ", spec.gpus_per_node,
                             " GPUs; the fabric has fewer"));
      return;
    }
    Enqueue(j, /*returning=*/false);
    if (const std::optional<double> wait = MaxWait(spec)) {
      expiries_.insert({trace_.jobs[j].arrival_s + *wait, j});
    }
  }

  int64_t Priority(size_t j) const { return trace_.jobs[j].spec.priority; }

  // Puts job j into the queue (queue_rules.h).
  void Enqueue(size_t j, bool returning) {
    EnqueueByPriority(queue_, j, returning, [this](size_t k) { return Priority(k); });
  }

  // The job's max_wait where it matters: a hard max_tier narrower than the cluster.
  static std::optional<double> MaxWait(const JobSpec& spec) {
    if (!spec.max_wait_s || spec.mode != ConstraintMode::kHard ||
        spec.max_tier == MaxTier::kCluster) {
      return std::nullopt;
    }
    return spec.max_wait_s;
  }

  void Reject(size_t j, std::string reason) {
    if (const std::optional<double> wait = MaxWait(trace_.jobs[j].spec)) {
      expiries_.erase({trace_.jobs[j].arrival_s + *wait, j});
    }
    JobRecord& r = result_.jobs[j];
    r.outcome = JobOutcome::kRejected;
    r.reject_reason = std::move(reason);
  }

  void Finish(double now) {
    const size_t j = running_.begin()->second;
    running_.erase(running_.begin());
    JobRecord& r = result_.jobs[j];
    r.end_s = now;
    const JobProgress& p = progress_[j];
    if (sharing_) r.slowdown = p.work > 0 ? std::max(1.0, (now - p.start_s) / p.work) : 1.0;
    Stop(j, now);
  }

  // Takes job j, already out of running_, off the cluster at `now` (it ended or was
  // interrupted).
  void Stop(size_t j, double now) {
    const bool tracked = sharing_ && shared_[j].tracked;
    state_.Release(allocations_[j]);
    result_.jobs[j].held_s += now - progress_[j].start_s;
    std::vector<GpuId>().swap(allocations_[j]);
    std::vector<LinkId>().swap(job_links_[j]);
    ++release_epoch_;
    OfferUplinks(j, -1);
    RecordBusy(now);
    if (tracked) {
      shared_[j].tracked = false;
      const std::vector<int64_t> near = sharing_->Neighbours(static_cast<int64_t>(j));
      sharing_->Remove(static_cast<int64_t>(j));
      Rebalance(now, near);
    }
  }

  double WorkLeft(size_t j) const {
    const JobRecord& r = result_.jobs[j];
    const double restart = r.interruptions + r.preemptions > 0 ? options_.faults.restart_s : 0;
    return restart + trace_.jobs[j].duration_s - progress_[j].checkpointed;
  }

  // Whether job j still has a max_wait expiry ahead (then it may fit relaxed later even on
  // an idle cluster).
  bool WaitsForExpiry(size_t j) const {
    const std::optional<double> wait = MaxWait(trace_.jobs[j].spec);
    return wait && expiries_.contains({trace_.jobs[j].arrival_s + *wait, j});
  }

  // Shared links: what a running job needs to advance.
  struct SharedJob {
    double compute_s = 0;    // seconds of compute per iteration
    DimSeconds nvlink_s{};   // per dimension, NVLink seconds per iteration (not shared)
    DimSeconds net_share{};  // per dimension, its part of the job's network bytes
    double reference_s = 0;  // seconds per iteration of the trace's reference placement
    double remaining = 0;    // trace seconds of work left (at reference speed)
    double rate = 1;         // trace seconds done per second now
    double since = 0;        // when `remaining` was last brought up to date
    double end = 0;          // its key in running_
    bool tracked = false;    // running with links in sharing_
  };

  // Brings the remaining work of every job whose share a change to `changed` can move up
  // to `now` at its old rate, recomputes those max-min shares, and moves their end times to
  // the new rates. Other jobs keep their rates (shares decompose over groups of jobs that
  // share links); jobs without network traffic always run at rate 1.
  void Rebalance(double now, const std::vector<int64_t>& changed) {
    const absl::flat_hash_map<int64_t, double> fraction = sharing_->FractionsAround(changed);
    for (const auto& [key, share] : fraction) {
      const size_t j = static_cast<size_t>(key);
      SharedJob& s = shared_[j];
      s.remaining = std::max(0.0, s.remaining - (now - s.since) * s.rate);
      s.since = now;
      const double network_s = sharing_->AloneSeconds(static_cast<int64_t>(j)) / share;
      DimSeconds comm = s.nvlink_s;
      for (int d = 0; d < kNumDims; ++d) comm[d] += network_s * s.net_share[d];
      const double step = comm_.CombineSeconds(trace_.jobs[j].spec, s.compute_s, comm);
      // Never faster than the reference placement, as in the per-job model.
      s.rate = s.reference_s > 0 && step > s.reference_s ? s.reference_s / step : 1.0;
      running_.erase({s.end, j});
      s.end = now + s.remaining / s.rate;
      running_.insert({s.end, j});
    }
  }

  // Tries to place job j now. nullopt when it does not fit (a verdict, remembered until
  // the next release); an error status when the engine reports anything else.
  absl::StatusOr<std::optional<PlacementPlan>> TryPlace(size_t j, double now) {
    const TraceJob& tj = trace_.jobs[j];
    // Look-ahead: only jobs that need a whole block may use the kept ones.
    if (needs_block_.empty() || !needs_block_[j]) {
      KeepBlocks();
    } else {
      ReleaseKeptBlocks();
    }
    if (!state_.FitsByCount(tj.spec) || failed_epoch_[j] == release_epoch_) {
      return std::optional<PlacementPlan>();
    }
    PrepareRequest(j, now);
    const auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<PlacementPlan> plan = Engine().Place(request_, state_.occupancy());
    const double seconds = SecondsSince(t0);
    ++result_.place_calls;
    result_.place_seconds_total += seconds;
    if (plan.ok()) {
      result_.jobs[j].place_us = seconds * 1e6;
      return std::optional<PlacementPlan>(*std::move(plan));
    }
    if (plan.status().code() != absl::StatusCode::kResourceExhausted) {
      return absl::Status(plan.status().code(), absl::StrCat(trace_.source, ":", tj.line, ": job ",
                                                             tj.id, ": ", plan.status().message()));
    }
    failed_epoch_[j] = release_epoch_;
    return std::optional<PlacementPlan>();
  }

  // Sets request_ for job j at `now`.
  void PrepareRequest(size_t j, double now) {
    const TraceJob& tj = trace_.jobs[j];
    request_.job = tj.spec;
    // Waited max_wait (to the second): the tier constraint is relaxed, as Slurm's
    // --switches=N@max-time lets a job run on more switches after max-time.
    if (const std::optional<double> wait = MaxWait(tj.spec); wait && now >= tj.arrival_s + *wait) {
      request_.job.mode = ConstraintMode::kSoft;
    }
    request_.seed = options_.seed * 1000003 + static_cast<uint64_t>(tj.id);
    request_.ecmp = {options_.ecmp, request_.seed};
  }

  double RunSeconds(size_t j, const PlacementPlan& plan) const {
    return WorkLeft(j) * comm_.Slowdown(plan.job, plan.traffic);
  }

  void Start(size_t j, const PlacementPlan& plan, double now) {
    const TraceJob& tj = trace_.jobs[j];
    JobRecord& r = result_.jobs[j];
    std::vector<GpuId>& gpus = allocations_[j];
    gpus.reserve(plan.ranks.size());
    for (const RankSlot& slot : plan.ranks) gpus.push_back(slot.gpu);
    state_.Allocate(gpus);
    JobProgress& p = progress_[j];
    p.work = WorkLeft(j);
    p.restart_s = p.work - (tj.duration_s - p.checkpointed);
    p.start_s = now;
    (last_stop_[j] == StopCause::kPreemption ? r.preempted_restart_work_s : r.restart_work_s) +=
        p.restart_s;
    if (r.start_s < 0) r.start_s = now;
    r.relaxed = plan.relaxed;
    if (const std::optional<double> wait = MaxWait(tj.spec))
      expiries_.erase({tj.arrival_s + *wait, j});
    r.slowdown = comm_.Slowdown(plan.job, plan.traffic);
    r.end_s = now + p.work * r.slowdown;
    const double ref_step = comm_.ReferenceStepSeconds(plan.job, plan.traffic);
    r.iterations = ref_step > 0 ? tj.duration_s / ref_step : 0;
    r.spine_bytes_per_iter = plan.traffic.spine_bytes();
    r.off_nvlink_bytes_per_iter = plan.traffic.network_bytes();
    r.spine_bytes_lower_bound_per_iter = plan.spine_bytes_lower_bound;
    r.leaves = plan.footprint.leaves_used;
    r.blocks = plan.footprint.blocks_used;
    r.pods = plan.footprint.pods_used;
    // Where every host is its own NVLink domain the footprint counts none: its nodes are.
    r.nvlink_domains = plan.footprint.nvlink_domains_used > 0 ? plan.footprint.nvlink_domains_used
                                                              : plan.footprint.nodes;
    const GroupSpread& dp = plan.traffic.spread[static_cast<int>(Dim::kDp)];
    const GroupSpread& pp = plan.traffic.spread[static_cast<int>(Dim::kPp)];
    if (plan.job.dp > 1) {
      r.dp_leaves = dp.mean_leaves;
      r.dp_blocks = dp.mean_blocks;
    }
    if (plan.job.pp > 1) {
      r.pp_leaves = pp.mean_leaves;
      r.pp_blocks = pp.mean_blocks;
    }
    running_.insert({r.end_s, j});
    RecordBusy(now);
    if (uplinks_) {
      offered_[j] = uplinks_->OfferOf(plan.links, ref_step);
      OfferUplinks(j, +1);
    }
    if (!fault_steps_.empty()) {
      std::vector<LinkId>& crossed = job_links_[j];
      for (const LinkLoad& load : plan.links) crossed.push_back(load.link);
      std::sort(crossed.begin(), crossed.end());
      crossed.erase(std::unique(crossed.begin(), crossed.end()), crossed.end());
    }
    if (sharing_ && !plan.links.empty()) {
      sharing_->Set(static_cast<int64_t>(j), cables_->Demand(plan.links));
      SharedJob& s = shared_[j];
      s.compute_s = comm_.ComputeSeconds(plan.job);
      s.nvlink_s = comm_.NvlinkSeconds(plan.job, plan.traffic);
      s.net_share = CommModel::NetworkBytes(plan.traffic);
      const double network = plan.traffic.network_bytes();
      for (double& share : s.net_share) share = network > 0 ? share / network : 0;
      s.reference_s = ref_step;
      s.remaining = p.work;
      s.since = now;
      s.end = r.end_s;
      s.tracked = true;
      Rebalance(now, {static_cast<int64_t>(j)});
    }
  }

  // Adds (sign +1) or takes away (-1) job j's offered bytes per second on the uplinks it
  // climbs, and refreshes the busy shares in the request.
  void OfferUplinks(size_t j, int sign) {
    if (!uplinks_) return;
    sign > 0 ? uplinks_->Add(offered_[j]) : uplinks_->Remove(offered_[j]);
    for (const auto& [s, rate] : offered_[j]) request_.uplink_busy[s] = uplinks_->busy()[s];
    if (sign < 0) UplinkTally::Offer().swap(offered_[j]);
  }

  absl::Status SchedulePass(double now) {
    while (!queue_.empty()) {
      const size_t head = queue_.front();
      TP_ASSIGN_OR_RETURN(std::optional<PlacementPlan> plan, TryPlace(head, now));
      if (plan) {
        Start(head, *plan, now);
        queue_.pop_front();
        continue;
      }
      TP_ASSIGN_OR_RETURN(const bool started, PreemptFor(head, now));
      if (started) {
        queue_.pop_front();  // victims of lower priority queue up behind it
        continue;
      }
      if (state_.busy_gpus() == 0 && !WaitsForExpiry(head) && !FitsOnceRepaired(head)) {
        // Nothing runs, so nothing will ever free up for it.
        Reject(head,
               absl::StrCat("policy ", request_.policy, " cannot place it on the idle fabric"));
        queue_.pop_front();
        continue;
      }
      break;
    }
    if (queue_.size() < 2) return absl::OkStatus();
    KeepBlocks();  // GPUs kept for jobs that need a block are not for backfilling
    auto [shadow, extra] =
        ReserveForHead(state_.free_gpus(), result_.jobs[queue_.front()].gpus, running_,
                       [this](size_t k) { return result_.jobs[k].gpus; });
    int scanned = 0;
    for (auto it = std::next(queue_.begin());
         it != queue_.end() && scanned < options_.backfill_window; ++scanned) {
      const size_t j = *it;
      const int64_t gpus = result_.jobs[j].gpus;
      // The comm model only slows jobs down, so the trace duration bounds the run time.
      if (now + WorkLeft(j) > shadow && gpus > extra) {
        ++it;
        continue;
      }
      TP_ASSIGN_OR_RETURN(std::optional<PlacementPlan> plan, TryPlace(j, now));
      if (!plan) {
        ++it;
        continue;
      }
      const bool ends_in_time = now + RunSeconds(j, *plan) <= shadow;
      if (!ends_in_time && gpus > extra) {
        ++it;
        continue;
      }
      if (!ends_in_time) extra -= gpus;
      Start(j, *plan, now);
      it = queue_.erase(it);
    }
    return absl::OkStatus();
  }

  void ApplyFaultStep(const FaultStep& step, double now) {
    const FaultEvent& e = options_.faults.schedule->events[step.event];
    switch (step.kind) {
      case FaultStepKind::kBegin:
        ++result_.faults_applied;
        if (e.kind == FaultKind::kFail) InterruptJobsOn(e.element, now);
        actual_.Begin(e);
        ApplyCapacity(now);
        break;
      case FaultStepKind::kEnd:
        actual_.End(e);
        ApplyCapacity(now);
        break;
      case FaultStepKind::kKnownBegin:
      case FaultStepKind::kKnownEnd:
        step.kind == FaultStepKind::kKnownBegin ? known_.Begin(e) : known_.End(e);
        engine_stale_ = true;
        ++release_epoch_;  // what fits may have changed
        break;
    }
  }

  // The engine for what the policy knows now, built when first needed after a change (a
  // repair and a new fault at one instant, or changes while nothing waits, cost nothing).
  const PlacementEngine& Engine() {
    if (engine_stale_) {
      engine_stale_ = false;
      faulted_engine_.reset();
      engine_ = &base_engine_;
      if (!known_.empty()) {
        faulted_engine_ = base_engine_.WithHealth(known_.Health(watches_links_));
        engine_ = faulted_engine_.get();
      }
    }
    return *engine_;
  }

  // Interrupts every running job with a GPU on a host `element`'s failure cuts off, or
  // traffic on a link it takes down.
  void InterruptJobsOn(const FaultElement& element, double now) {
    const std::vector<HostId> hosts = actual_.HostsCutOff(element);
    const std::vector<LinkId> links = actual_.LinksDown(element);
    std::vector<size_t> hit;
    for (const auto& [end, j] : running_) {
      bool crosses = false;
      for (GpuId g : allocations_[j]) {
        crosses =
            crosses || std::binary_search(hosts.begin(), hosts.end(), fabric_->gpus()[g].host);
      }
      for (LinkId l : links) {
        crosses = crosses || std::binary_search(job_links_[j].begin(), job_links_[j].end(), l);
      }
      if (crosses) hit.push_back(j);
    }
    for (size_t j : hit) Interrupt(j, now, StopCause::kFault);
  }

  // Useful work of running job j by `now` and the part its last checkpoint saved (seconds
  // at reference speed): stopping it now loses the difference.
  std::pair<double, double> UsefulAndSaved(size_t j, double now) const {
    const JobRecord& r = result_.jobs[j];
    const JobProgress& p = progress_[j];
    const bool tracked = sharing_ && shared_[j].tracked;
    const double done = tracked
                            ? p.work - std::max(0.0, shared_[j].remaining -
                                                         (now - shared_[j].since) * shared_[j].rate)
                            : (now - p.start_s) / r.slowdown;
    const double useful = UsefulWork(p, done);
    return {useful, SavedWork(p, useful, options_.faults.checkpoint_interval_s)};
  }

  // Job j loses the work since its last checkpoint and goes back into the queue, in front
  // of its priority class.
  void Interrupt(size_t j, double now, StopCause cause) {
    JobRecord& r = result_.jobs[j];
    const auto [useful, saved] = UsefulAndSaved(j, now);
    if (cause == StopCause::kFault) {
      r.lost_work_s += useful - saved;
      ++r.interruptions;
    } else {
      r.preempted_lost_work_s += useful - saved;
      ++r.preemptions;
    }
    progress_[j].checkpointed = std::min(saved, trace_.jobs[j].duration_s);
    last_stop_[j] = cause;
    const bool tracked = sharing_ && shared_[j].tracked;
    running_.erase({tracked ? shared_[j].end : r.end_s, j});
    Stop(j, now);
    r.end_s = -1;
    failed_epoch_[j] = -1;
    Enqueue(j, /*returning=*/true);
  }

  // Preemption for the queue's head, which cannot be placed now (SimPreemption). Tried
  // once per release epoch. True if the head started.
  absl::StatusOr<bool> PreemptFor(size_t head, double now) {
    const PreemptionMode mode = options_.preemption.mode;
    if (mode == PreemptionMode::kNone || preempt_epoch_[head] == release_epoch_) return false;
    preempt_epoch_[head] = release_epoch_;
    std::vector<RunningJob> running;
    for (const auto& [end, j] : running_) {
      if (Priority(j) >= Priority(head)) continue;
      const auto [useful, saved] = UsefulAndSaved(j, now);
      running.push_back({absl::StrCat(j), Priority(j), allocations_[j],
                         static_cast<double>(result_.jobs[j].gpus) * (useful - saved) / 3600});
    }
    if (running.empty()) return false;
    std::vector<std::string> victims;
    std::optional<PlacementPlan> plan;
    if (mode == PreemptionMode::kTopology) {
      PrepareRequest(head, now);
      absl::StatusOr<PreemptionPlan> chosen =
          PlanPreemption(Engine(), request_, state_.occupancy(), running);
      if (!chosen.ok()) {
        if (chosen.status().code() == absl::StatusCode::kResourceExhausted) return false;
        return absl::Status(chosen.status().code(),
                            absl::StrCat(trace_.source, ":", trace_.jobs[head].line, ": job ",
                                         trace_.jobs[head].id, ": ", chosen.status().message()));
      }
      for (const Victim& v : chosen->victims) victims.push_back(v.id);
      plan = std::move(chosen->plan);
    } else {
      victims = PriorityOnlyVictims(*fabric_, trace_.jobs[head].spec, state_.occupancy(), running);
      if (victims.empty()) return false;
    }
    if (!victims.empty()) ++result_.preemption_rounds;
    for (const std::string& id : victims) {
      size_t j = 0;
      if (!absl::SimpleAtoi(id, &j) || j >= trace_.jobs.size()) {
        return absl::InternalError(absl::StrCat("preemption named an unknown job '", id, "'"));
      }
      Interrupt(j, now, StopCause::kPreemption);
    }
    if (!plan) {
      TP_ASSIGN_OR_RETURN(plan, TryPlace(head, now));
    }
    if (!plan) {
      ++result_.wasted_preemption_rounds;
      return false;
    }
    if (queue_.empty() || queue_.front() != head) {
      return absl::InternalError("preemption: the head left the front of the queue");
    }
    Start(head, *plan, now);
    return true;
  }

  // Marks busy the free GPUs of the blocks kept for the waiting jobs that need one (if not
  // already): one block per such job, those that will be whole free soonest by the
  // running jobs' known end times (as EASY backfill reads them; then in block order), so
  // that they drain towards a whole block instead of being filled by others. A change of
  // the kept set counts as a release (what fits has changed).
  void KeepBlocks() {
    if (needs_block_.empty() || blocks_kept_) return;
    blocks_kept_ = true;
    std::vector<int32_t> kept;
    const Fabric& fabric = base_engine_.fabric();
    if (state_.busy_gpus() > 0) {
      size_t needs = 0;
      int scanned = 0;
      for (auto it = queue_.begin(); it != queue_.end() && scanned <= options_.backfill_window;
           ++it, ++scanned) {
        needs += needs_block_[*it];
      }
      if (needs > 0) {
        kept = BlocksWholeSoonest(
            fabric, running_, [this](size_t k) { return std::span<const GpuId>(allocations_[k]); },
            needs);
      }
    }
    kept_gpus_.clear();
    for (int32_t b : kept) {
      for (HostId h : fabric.blocks()[b].hosts) {
        for (GpuId g : fabric.hosts()[h].gpus) {
          if (!state_.occupancy().busy(g)) kept_gpus_.push_back(g);
        }
      }
    }
    state_.Allocate(kept_gpus_);
    if (kept != kept_blocks_) ++release_epoch_;
    kept_blocks_ = std::move(kept);
  }

  // Frees the kept blocks again (before a job that needs one is tried, and after a pass).
  void ReleaseKeptBlocks() {
    if (!blocks_kept_) return;
    blocks_kept_ = false;
    state_.Release(kept_gpus_);
    kept_gpus_.clear();
  }

  // Gives every link whose capacity share moved its new capacity, and the jobs on it their
  // new rates.
  void ApplyCapacity(double now) {
    if (!sharing_ || actual_.changed_links().empty()) return;
    std::vector<int64_t> users;
    for (LinkId l : actual_.changed_links()) {
      for (int32_t res = cables_->first(l); res < cables_->end(l); ++res) {
        sharing_->SetShare(res, actual_.capacity_share(l));
        const std::vector<int64_t>& on = sharing_->Users(res);
        users.insert(users.end(), on.begin(), on.end());
      }
    }
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
    Rebalance(now, users);
  }

  // Whether a head that cannot be placed on the idle fabric now could be once every fault
  // it knows of is repaired (then it waits for the repair instead of being rejected).
  bool FitsOnceRepaired(size_t j) {
    if (&Engine() == &base_engine_) return false;
    const PlacementEngine* faulted = engine_;
    engine_ = &base_engine_;
    const int64_t epoch = failed_epoch_[j];
    failed_epoch_[j] = -1;
    const absl::StatusOr<std::optional<PlacementPlan>> plan = TryPlace(j, clock_);
    engine_ = faulted;
    failed_epoch_[j] = epoch;
    return plan.ok() && plan->has_value();
  }

  int64_t FragmentedGpus() const {
    if (queue_.empty() || state_.free_gpus() == 0) return 0;
    int smallest = std::numeric_limits<int>::max();
    int scanned = 0;
    for (auto it = queue_.begin();
         it != queue_.end() && scanned <= options_.backfill_window && smallest > 1;
         ++it, ++scanned) {
      const JobSpec& spec = trace_.jobs[*it].spec;
      if (spec.world_size() <= state_.free_gpus())
        smallest = std::min(smallest, spec.gpus_per_node);
    }
    if (smallest == std::numeric_limits<int>::max()) return 0;
    return state_.FreeGpusOnHostsBelow(smallest);
  }

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
  std::optional<LinkSharing> sharing_;    // with shared_links only
  std::vector<SharedJob> shared_;         // per job, with shared_links
  std::optional<CableResources> cables_;  // with shared_links
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
  int64_t release_epoch_ = 0;
  double clock_ = -1;
  int64_t fragmented_now_ = 0;
  int64_t slurm_fragmentation_now_ = 0;
  bool head_blocked_now_ = false;
};

}  // namespace

bool WatchesLinkHealth(const std::string& policy) { return policy == kTopoplacePolicyName; }

absl::string_view PreemptionModeName(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kNone:
      return "none";
    case PreemptionMode::kPriorityOnly:
      return "priority-only";
    case PreemptionMode::kTopology:
      return "topology";
  }
  return "none";
}

Simulator::Simulator(FabricPtr fabric, const SimOptions& options)
    : fabric_(std::move(fabric)),
      options_(options),
      engine_(fabric_),
      comm_(CommModel::ForFabric(*fabric_, options.comm)) {}

absl::StatusOr<SimResult> Simulator::Run(const Trace& trace, const std::string& policy) const {
  // Fail on a bad policy name up front rather than on the first job.
  TP_ASSIGN_OR_RETURN(PlacementPolicyPtr unused, BuiltinPlugins().MakePolicy(policy));
  (void)unused;
  if (!std::is_sorted(
          trace.jobs.begin(), trace.jobs.end(),
          [](const TraceJob& a, const TraceJob& b) { return a.arrival_s < b.arrival_s; })) {
    return absl::InvalidArgumentError("trace: jobs must be sorted by arrival (SortByArrival)");
  }
  if (options_.faults.schedule && !options_.faults.schedule->events.empty() &&
      !options_.shared_links) {
    return absl::InvalidArgumentError(
        "faults need shared links (--network shared): degraded and rerouted links slow jobs "
        "through the link sharing");
  }
  Replay replay(fabric_, engine_, comm_, options_, trace, policy);
  return replay.Run();
}

}  // namespace topoplace::sched::sim
