#include "scheduler/sim/study.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "scheduler/policies/topoplace_policy.h"
#include "scheduler/sim/degree_rule.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/synthetic_trace.h"
#include "scheduler/steptime/comm_model.h"

namespace topoplace::sched::sim {
namespace {

// How far the published model's schedule must reach at first: the last arrival, plus the
// longest job, plus all the work run on the whole fabric at once. A run that outlasts it
// is run again with the horizon doubled (the longer schedule starts with the same events).
double FirstHorizon(const Fabric& fabric, const Trace& trace) {
  double last_arrival = 0, longest = 0, gpu_seconds = 0;
  for (const TraceJob& job : trace.jobs) {
    last_arrival = std::max(last_arrival, job.arrival_s);
    longest = std::max(longest, job.duration_s);
    gpu_seconds += job.duration_s * static_cast<double>(job.spec.world_size());
  }
  return last_arrival + longest + gpu_seconds / static_cast<double>(fabric.gpus().size());
}

// When the last job of `result` ended.
double LastEnd(const SimResult& result) {
  return result.busy_steps.empty() ? 0 : result.busy_steps.back().time_s;
}

// The fault schedule of one point: the replayed trace, or the published model at `scale`
// over [0, horizon_s).
absl::StatusOr<std::shared_ptr<const FaultSchedule>> ScheduleFor(const Study& study, double scale,
                                                                 double horizon_s) {
  if (study.faults->replay != nullptr) return study.faults->replay;
  FaultRates rates = PublishedFaultRates();
  rates.scale = scale;
  TP_ASSIGN_OR_RETURN(FaultSchedule schedule,
                      GenerateFaults(*study.fabric, rates, 0, horizon_s, study.faults->seed));
  return std::make_shared<const FaultSchedule>(std::move(schedule));
}

// Every policy at one load and fault scale, and topoplace's control run blind to link
// faults; the published model's horizon doubled until every run ends within it.
absl::Status RunFaultPoint(const Study& study, const Trace& trace, double scale,
                           FaultSweepPoint& point, std::shared_ptr<const FaultSchedule>& schedule) {
  SimOptions options = study.options;
  for (double horizon = FirstHorizon(*study.fabric, trace);; horizon *= 2) {
    TP_ASSIGN_OR_RETURN(options.faults.schedule, ScheduleFor(study, scale, horizon));
    const Simulator simulator(study.fabric, options);
    point.run.metrics.clear();
    point.run.results.clear();
    double last_end = 0;
    for (const std::string& policy : study.policies) {
      TP_ASSIGN_OR_RETURN(SimResult result, simulator.Run(trace, policy));
      last_end = std::max(last_end, LastEnd(result));
      point.run.metrics.push_back(Summarize(result));
      point.run.results.push_back(std::move(result));
    }
    if (std::find(study.policies.begin(), study.policies.end(), kTopoplacePolicyName) !=
        study.policies.end()) {
      SimOptions blind = options;
      blind.faults.ignore_link_health = true;
      TP_ASSIGN_OR_RETURN(
          SimResult result,
          Simulator(study.fabric, blind).Run(trace, std::string(kTopoplacePolicyName)));
      last_end = std::max(last_end, LastEnd(result));
      point.run.metrics.push_back(Summarize(result));
      point.run.metrics.back().policy = std::string(kBlindTopoplaceLabel);
      point.run.results.push_back(std::move(result));
    }
    if (study.faults->replay != nullptr || last_end <= horizon) break;
  }
  schedule = options.faults.schedule;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Trace> LoadStudyTrace(const Fabric& fabric, const StudyTraceSpec& spec) {
  if (spec.jobs < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--jobs: expected >= 0, got ", spec.jobs));
  }
  Trace trace;
  // Jobs the degree rule shapes from a GPU count are shaped for this fabric's hosts.
  const NodeShape shape = NodeShapeOf(fabric);
  if (spec.trace == kLargeMixTraceName || spec.trace == kMoeMixTraceName) {
    LargeMixOptions mix;
    mix.jobs = spec.jobs > 0 ? spec.jobs : mix.jobs;
    mix.seed = spec.seed;
    mix.shape = shape;
    if (spec.trace == kMoeMixTraceName) mix.moe_share = kMoeMixShare;
    TP_ASSIGN_OR_RETURN(trace,
                        GenerateLargeJobMix(static_cast<int64_t>(fabric.gpus().size()), mix));
  } else {
    TP_ASSIGN_OR_RETURN(trace, LoadTraceFile(spec.trace));
    if (spec.jobs > 0 && static_cast<int64_t>(trace.jobs.size()) > spec.jobs) {
      trace.jobs.resize(static_cast<size_t>(spec.jobs));
    }
    TP_RETURN_IF_ERROR(ReshapeFor(trace, shape));
  }
  PriorityMix priorities = spec.priorities;
  priorities.seed = spec.seed;
  TP_RETURN_IF_ERROR(AssignPriorities(trace, fabric, priorities));
  return trace;
}

RunInfo StudyRunInfo(const Study& study, const Trace& scaled, double load_factor) {
  const SimOptions& o = study.options;
  const int64_t gpus = static_cast<int64_t>(study.fabric->gpus().size());
  return {study.fabric->name(),
          gpus,
          scaled.source,
          static_cast<int64_t>(scaled.jobs.size()),
          study.load_scale * load_factor,
          OfferedLoad(scaled, gpus),
          o.seed,
          o.backfill_window,
          o.rail_local,
          o.shared_links ? "shared" : "alone",
          std::string(EcmpModeName(o.ecmp)),
          CommModel::ForFabric(*study.fabric, o.comm).options()};
}

absl::StatusOr<double> LoadScaleForOffer(const Trace& trace, const Fabric& fabric,
                                         double offered_load) {
  const double offered = OfferedLoad(trace, static_cast<int64_t>(fabric.gpus().size()));
  if (!(offered > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--offered-load: trace '", trace.source,
        "' offers no load over a span (its jobs do not arrive at two different times)"));
  }
  if (!(offered_load > 0) || !std::isfinite(offered_load)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--offered-load: expected a positive share of the fabric, got ", offered_load));
  }
  return offered_load / offered;
}

absl::StatusOr<StudyResult> RunStudy(const Study& study) {
  StudyResult out;
  const Simulator simulator(study.fabric, study.options);
  for (double factor : study.load_factors) {
    Trace trace = study.trace;
    TP_RETURN_IF_ERROR(ScaleLoad(trace, study.load_scale * factor));
    if (study.faults.has_value()) {
      for (double scale : study.faults->scales) {
        FaultSweepPoint& point = out.fault_points.emplace_back();
        point.fault_scale = scale;
        point.run.factor = factor;
        point.run.info = StudyRunInfo(study, trace, factor);
        TP_RETURN_IF_ERROR(RunFaultPoint(study, trace, scale, point, out.last_schedule));
      }
      continue;
    }
    SweepPoint& point = out.loads.emplace_back();
    point.factor = factor;
    for (const std::string& policy : study.policies) {
      TP_ASSIGN_OR_RETURN(SimResult result, simulator.Run(trace, policy));
      point.metrics.push_back(Summarize(result));
      point.results.push_back(std::move(result));
    }
    point.info = StudyRunInfo(study, trace, factor);
  }
  return out;
}

}  // namespace topoplace::sched::sim
