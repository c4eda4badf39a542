// Replay's disruptions (replay.h): faults begin, end and become known; jobs on what
// fails are interrupted; heads of higher priority preempt; look-ahead keeps blocks.
#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/placement/preemption.h"
#include "scheduler/sim/look_ahead.h"
#include "scheduler/sim/replay.h"

namespace topoplace::sched::sim {

void Replay::ApplyFaultStep(const FaultStep& step, double now) {
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

const PlacementEngine& Replay::Engine() {
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

void Replay::InterruptJobsOn(const FaultElement& element, double now) {
  const std::vector<HostId> hosts = actual_.HostsCutOff(element);
  const std::vector<LinkId> links = actual_.LinksDown(element);
  std::vector<size_t> hit;
  for (const auto& [end, j] : running_) {
    bool crosses = false;
    for (GpuId g : allocations_[j]) {
      crosses = crosses || std::binary_search(hosts.begin(), hosts.end(), fabric_->gpus()[g].host);
    }
    for (LinkId l : links) {
      crosses = crosses || std::binary_search(job_links_[j].begin(), job_links_[j].end(), l);
    }
    if (crosses) hit.push_back(j);
  }
  for (size_t j : hit) Interrupt(j, now, StopCause::kFault);
}

std::pair<double, double> Replay::UsefulAndSaved(size_t j, double now) const {
  const JobRecord& r = result_.jobs[j];
  const JobProgress& p = progress_[j];
  const double done =
      shared_ && shared_->tracked(j) ? shared_->WorkDone(j, now) : (now - p.start_s) / r.slowdown;
  const double useful = UsefulWork(p, done);
  return {useful, SavedWork(p, useful, options_.faults.checkpoint_interval_s)};
}

void Replay::Interrupt(size_t j, double now, StopCause cause) {
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
  running_.erase({shared_ && shared_->tracked(j) ? shared_->end(j) : r.end_s, j});
  Stop(j, now);
  r.end_s = -1;
  failed_epoch_[j] = -1;
  Enqueue(j, /*returning=*/true);
}

absl::StatusOr<bool> Replay::PreemptFor(size_t head, double now) {
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

void Replay::KeepBlocks() {
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

void Replay::ReleaseKeptBlocks() {
  if (!blocks_kept_) return;
  blocks_kept_ = false;
  state_.Release(kept_gpus_);
  kept_gpus_.clear();
}

void Replay::ApplyCapacity(double now) {
  if (!shared_ || actual_.changed_links().empty()) return;
  Reschedule(shared_->SetCapacity(actual_.changed_links(), actual_, now));
}

bool Replay::FitsOnceRepaired(size_t j) {
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

}  // namespace topoplace::sched::sim
