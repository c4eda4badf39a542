// A fault sweep: the same comparison (one trace, one fabric, every policy) at several
// multiples of the published fault rates (0 = no faults) and offered loads, as a table,
// stable JSON and one Markdown page: per load, goodput, GPU-hours lost to interruptions,
// interruptions per 1,000 job-hours and JCT per policy and fault scale, then what watching
// link health is worth: topoplace against its control run blind to link faults
// (kBlindTopoplaceLabel), beside the best and the median baseline.
//
//   std::vector<FaultSweepPoint> points = ...;  // policies in the same order in each
//   TP_RETURN_IF_ERROR(WriteFaultSweepReport(dir, points, command, assumptions));
#ifndef TOPOPLACE_SCHEDULER_SIM_FAULT_REPORT_H_
#define TOPOPLACE_SCHEDULER_SIM_FAULT_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/sim/sweep_report.h"

namespace topoplace::sched::sim {

struct FaultSweepPoint {
  double fault_scale = 0;  // of the rates the schedule was drawn at
  SweepPoint run;          // run.factor: the offered load's multiple
};

// Text table, one line per (load, scale, policy).
std::string FaultSweepTable(const std::vector<FaultSweepPoint>& points);
// "topoplace.fault-sweep/v1": per point its load factor, fault scale and the
// "topoplace.simulation/v1" object of its run.
std::string FaultSweepToJson(const std::vector<FaultSweepPoint>& points);
// The Markdown page; `assumptions` (Markdown lines) says where the rates come from.
std::string RenderFaultSweepMarkdown(const std::vector<FaultSweepPoint>& points,
                                     const std::string& command, const std::string& assumptions);
// Writes report.md into `dir` (created) and metrics.json beside it. Internal if a file
// cannot be written.
absl::Status WriteFaultSweepReport(const std::string& dir,
                                   const std::vector<FaultSweepPoint>& points,
                                   const std::string& command, const std::string& assumptions);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_FAULT_REPORT_H_
