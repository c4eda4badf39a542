#include "scheduler/sim/replay.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/framework/nvlink_domains.h"
#include "scheduler/sim/look_ahead.h"
#include "scheduler/sim/queue_rules.h"

namespace topoplace::sched::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Replay::Replay(FabricPtr fabric, const PlacementEngine& engine, const CommModel& comm,
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
      watches_links_(WatchesLinkHealth(policy) && !options.faults.ignore_link_health),
      tells_outlook_(LargestNvlinkDomain(engine.fabric()) > 1) {
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
    r.spec = FormatJobSpec(tj.spec);
    r.arrival_s = tj.arrival_s;
    r.duration_s = tj.duration_s;
    r.priority = tj.spec.priority;
  }
  if (options.preemption.look_ahead) needs_block_ = JobsNeedingABlock(engine.fabric(), trace);
  request_.policy = policy;
  request_.routing.rail_local = options.rail_local;
  request_.weights = options.weights;
  if (options.load_aware) {
    request_.link_loads = true;
    uplinks_.emplace(engine.fabric());
    request_.uplink_busy = uplinks_->busy();
    offered_.resize(trace.jobs.size());
  }
  if (options.shared_links) {
    request_.link_loads = true;
    shared_.emplace(engine.fabric(), comm, trace.jobs.size());
  }
  if (options.faults.schedule) {
    result_.faults = options.faults.schedule->source;
    fault_steps_ = FaultTimeline(*options.faults.schedule, actual_, watches_links_,
                                 options.faults.detect_s, options.faults.recover_s);
  }
}

absl::StatusOr<SimResult> Replay::Run() {
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
    head_blocked_now_ = !queue_.empty() && result_.jobs[queue_.front()].gpus <= state_.free_gpus();
  }
  // Unreachable by construction (a head that cannot start on an idle cluster is
  // rejected), but no job may leave the run without an outcome.
  for (size_t j : queue_) Reject(j, "still waiting when the trace ended");
  result_.wall_seconds = SecondsSince(t0);
  return std::move(result_);
}

void Replay::AdvanceClock(double now) {
  if (clock_ >= 0 && now > clock_) {
    result_.fragmented_gpu_seconds += fragmented_now_ * (now - clock_);
    result_.slurm_block_fragmentation_node_seconds += slurm_fragmentation_now_ * (now - clock_);
    if (head_blocked_now_) result_.head_blocked_seconds += now - clock_;
  }
  clock_ = now;
}

void Replay::RecordBusy(double now) {
  const int64_t busy = state_.busy_gpus();
  if (!result_.busy_steps.empty() && result_.busy_steps.back().time_s == now) {
    result_.busy_steps.back().busy = busy;
  } else {
    result_.busy_steps.push_back({now, busy});
  }
}

void Replay::Arrive(size_t j) {
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

void Replay::Enqueue(size_t j, bool returning) {
  EnqueueByPriority(queue_, j, returning, [this](size_t k) { return Priority(k); });
}

std::optional<double> Replay::MaxWait(const JobSpec& spec) {
  // A cluster tier relaxes nothing, but on NVLink racks a hard job also waits for a domain
  // that holds its TP x CP x EP groups (topoplace_policy.cc): max_wait bounds that too.
  if (!spec.max_wait_s || spec.mode != ConstraintMode::kHard) return std::nullopt;
  return spec.max_wait_s;
}

void Replay::Reject(size_t j, std::string reason) {
  if (const std::optional<double> wait = MaxWait(trace_.jobs[j].spec)) {
    expiries_.erase({trace_.jobs[j].arrival_s + *wait, j});
  }
  JobRecord& r = result_.jobs[j];
  r.outcome = JobOutcome::kRejected;
  r.reject_reason = std::move(reason);
}

void Replay::Finish(double now) {
  const size_t j = running_.begin()->second;
  running_.erase(running_.begin());
  JobRecord& r = result_.jobs[j];
  r.end_s = now;
  const JobProgress& p = progress_[j];
  if (shared_) r.slowdown = p.work > 0 ? std::max(1.0, (now - p.start_s) / p.work) : 1.0;
  Stop(j, now);
}

void Replay::Stop(size_t j, double now) {
  state_.Release(allocations_[j]);
  result_.jobs[j].held_s += now - progress_[j].start_s;
  std::vector<GpuId>().swap(allocations_[j]);
  std::vector<LinkId>().swap(job_links_[j]);
  ++release_epoch_;
  OfferUplinks(j, -1);
  RecordBusy(now);
  if (shared_) Reschedule(shared_->Stop(j, now));
}

double Replay::WorkLeft(size_t j) const {
  const JobRecord& r = result_.jobs[j];
  const double restart = r.interruptions + r.preemptions > 0 ? options_.faults.restart_s : 0;
  return restart + trace_.jobs[j].duration_s - progress_[j].checkpointed;
}

bool Replay::WaitsForExpiry(size_t j) const {
  const std::optional<double> wait = MaxWait(trace_.jobs[j].spec);
  return wait && expiries_.contains({trace_.jobs[j].arrival_s + *wait, j});
}

void Replay::Reschedule(const std::vector<EndMove>& moved) {
  for (const EndMove& m : moved) {
    running_.erase({m.from, m.job});
    running_.insert({m.to, m.job});
  }
}

absl::StatusOr<std::optional<PlacementPlan>> Replay::TryPlace(size_t j, double now) {
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
  if (tells_outlook_) {
    FillOutlook(
        *fabric_, queue_, j, options_.backfill_window, running_, now,
        [this](size_t k) { return static_cast<int>(trace_.jobs[k].spec.nodes()); },
        [this](size_t k) { return std::span<const GpuId>(allocations_[k]); }, request_.outlook);
    request_.outlook.run_s = WorkLeft(j) * options_.run_estimate;
  }
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

void Replay::PrepareRequest(size_t j, double now) {
  const TraceJob& tj = trace_.jobs[j];
  request_.job = tj.spec;
  // Waited max_wait (to the second): the tier constraint (and the NVLink group one) is
  // relaxed, as Slurm's --switches=N@max-time lets a job run on more switches after
  // max-time.
  if (const std::optional<double> wait = MaxWait(tj.spec); wait && now >= tj.arrival_s + *wait) {
    request_.job.mode = ConstraintMode::kSoft;
  }
  request_.seed = options_.seed * 1000003 + static_cast<uint64_t>(tj.id);
  request_.ecmp = {options_.ecmp, request_.seed};
}

double Replay::RunSeconds(size_t j, const PlacementPlan& plan) {
  return WorkLeft(j) * plan.step.slowdown;
}

void Replay::Start(size_t j, const PlacementPlan& plan, double now) {
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
  r.slowdown = plan.step.slowdown;
  r.predicted_slowdown = plan.step.slowdown;
  r.slowdown_at_start = plan.step.slowdown;
  r.end_s = now + p.work * r.slowdown;
  const double ref_step = plan.step.reference_s;
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
  if (!shared_) return;
  Reschedule(shared_->Start(j, tj.spec, plan, ref_step, p.work, r.end_s, now));
  if (shared_->tracked(j)) r.slowdown_at_start = 1 / shared_->rate(j);
}

void Replay::OfferUplinks(size_t j, int sign) {
  if (!uplinks_) return;
  sign > 0 ? uplinks_->Add(offered_[j]) : uplinks_->Remove(offered_[j]);
  for (const auto& [s, rate] : offered_[j]) request_.uplink_busy[s] = uplinks_->busy()[s];
  if (sign < 0) UplinkTally::Offer().swap(offered_[j]);
}

absl::Status Replay::SchedulePass(double now) {
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
      Reject(head, absl::StrCat("policy ", request_.policy, " cannot place it on the idle fabric"));
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

int64_t Replay::FragmentedGpus() const {
  if (queue_.empty() || state_.free_gpus() == 0) return 0;
  int smallest = std::numeric_limits<int>::max();
  int scanned = 0;
  for (auto it = queue_.begin();
       it != queue_.end() && scanned <= options_.backfill_window && smallest > 1; ++it, ++scanned) {
    const JobSpec& spec = trace_.jobs[*it].spec;
    if (spec.world_size() <= state_.free_gpus()) smallest = std::min(smallest, spec.gpus_per_node);
  }
  if (smallest == std::numeric_limits<int>::max()) return 0;
  return state_.FreeGpusOnHostsBelow(smallest);
}

}  // namespace topoplace::sched::sim
