// A study: one trace on one fabric compared under several placement policies, at one or
// more loads and, with faults, at one or more fault scales. It is what `topoplace
// simulate` and the report scripts run; the CLI only parses flags into a Study, runs it
// and prints or writes what it returns (the report writers read the same points).
//
//   TP_ASSIGN_OR_RETURN(Trace trace, LoadStudyTrace(*fabric, {.trace = "synthetic:moe-mix"}));
//   Study study{.fabric = fabric, .trace = std::move(trace), .policies = {"topoplace"}};
//   TP_ASSIGN_OR_RETURN(StudyResult out, RunStudy(study));
//   ... out.loads[i].metrics ...
//
// Deterministic for the same study (except the measured wall times).
#ifndef TOPOPLACE_SCHEDULER_SIM_STUDY_H_
#define TOPOPLACE_SCHEDULER_SIM_STUDY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/sim/fault_report.h"
#include "scheduler/sim/faults.h"
#include "scheduler/sim/priority_mix.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/sweep_report.h"
#include "scheduler/sim/trace.h"
#include "topology/model/fabric.h"

namespace topoplace::sched::sim {

// Where a study's jobs come from.
struct StudyTraceSpec {
  // A trace file (Philly-style CSV or '#topoplace-trace v1'), or kLargeMixTraceName or
  // kMoeMixTraceName for the synthetic mixes.
  std::string trace;
  int64_t jobs = 0;   // >= 0. A file: its first `jobs` (0: all); a mix: its size (0: 1000)
  uint64_t seed = 1;  // of the synthetic mix and of the priority draw
  PriorityMix priorities = {};  // its seed is replaced by `seed`
};

// The trace of `spec`, its jobs shaped for `fabric`'s hosts and priorities assigned.
// InvalidArgument for negative `jobs` and the trace's and the priority draw's errors.
absl::StatusOr<Trace> LoadStudyTrace(const Fabric& fabric, const StudyTraceSpec& spec);

// Faults in a study (they need SimOptions::shared_links).
struct FaultStudy {
  // A fault trace replayed as written at every load; null: the published fault model,
  // drawn with `seed` at each of `scales` (multiples of its rates; 0: no faults) over a
  // horizon long enough for every run.
  std::shared_ptr<const FaultSchedule> replay;
  std::vector<double> scales = {1};
  uint64_t seed = 1;
};

struct Study {
  FabricPtr fabric;  // not null
  Trace trace;       // at the base load, sorted by arrival
  std::vector<std::string> policies;
  double load_scale = 1;                   // the base load: arrival times divided by it
  std::vector<double> load_factors = {1};  // multiples of the base load, one point each
  // The simulator's options for every run (faults.schedule is the study's to set).
  SimOptions options;
  // With faults: every load runs at every fault scale, and a policy that watches link
  // health (topoplace) gets a control run blind to them (kBlindTopoplaceLabel).
  std::optional<FaultStudy> faults;
};

struct StudyResult {
  // Without faults: one point per load factor, with every policy's results and metrics.
  std::vector<SweepPoint> loads;
  // With faults: one point per (load factor, fault scale), the results of the last
  // horizon run (the blind control run's last).
  std::vector<FaultSweepPoint> fault_points;
  // The fault schedule of the last point run (null without faults).
  std::shared_ptr<const FaultSchedule> last_schedule;
};

// Runs every point of `study`. The simulator's errors (an unknown policy, a job the
// engine rejects), ScaleLoad's for a bad load, GenerateFaults' for a bad scale.
absl::StatusOr<StudyResult> RunStudy(const Study& study);

// The load_scale at which `trace` offers `offered_load` of `fabric`'s GPUs (OfferedLoad):
// a study with load_scale LoadScaleForOffer(trace, fabric, 1) and load factors X runs at
// offered loads X. InvalidArgument for a trace that offers no load over a span or an
// offered load that is not positive.
absl::StatusOr<double> LoadScaleForOffer(const Trace& trace, const Fabric& fabric,
                                         double offered_load);

// What the report and the JSON say about a run at `load_factor` times the base load.
RunInfo StudyRunInfo(const Study& study, const Trace& scaled, double load_factor);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_STUDY_H_
