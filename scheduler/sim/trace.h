// A job trace: the jobs a simulation replays, in arrival order. Two text formats load into
// it (see trace_csv.h and trace_native.h); LoadTraceFile picks one from the first line.
//
//   TP_ASSIGN_OR_RETURN(Trace trace, LoadTraceFile("philly_trace.csv"));
//   for (const TraceJob& j : trace.jobs) ... j.spec.world_size() ...
#ifndef TOPOPLACE_SCHEDULER_SIM_TRACE_H_
#define TOPOPLACE_SCHEDULER_SIM_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/sim/degree_rule.h"

namespace topoplace::sched::sim {

struct TraceJob {
  int64_t id = 0;
  double arrival_s = 0;  // seconds since the trace start
  // Run time on a placement whose network traffic all stays at leaf speed (the reference
  // of comm_model.h); the simulation stretches it by the placement's slowdown.
  double duration_s = 0;
  JobSpec spec;  // validated; spec.world_size() GPUs
  int line = 0;  // line in the source file, for messages
  // The GPU count the degree rule shaped `spec` from (degree_rule.h); 0 when the trace
  // gave the spec itself. ReshapeFor derives such specs again for other hosts.
  int64_t derived_from_gpus = 0;
  bool moe = false;  // shaped by the MoE rule
};

struct Trace {
  std::string source;          // file name or generator name
  std::vector<TraceJob> jobs;  // sorted by (arrival_s, id)
};

// Reads `path` and parses it as the native format when its first line is the native
// header, else as the Philly-derived CSV. NotFound if unreadable; InvalidArgument
// ("FILE:LINE: ...") for a malformed line.
absl::StatusOr<Trace> LoadTraceFile(const std::string& path);

// Divides every arrival time by `scale` (> 0), so that the same jobs arrive `scale` times
// faster: the offered load grows by `scale`. InvalidArgument if scale <= 0.
absl::Status ScaleLoad(Trace& trace, double scale);

// The load `trace` offers `fabric_gpus` GPUs: its jobs' GPU-seconds of work (GPUs x trace
// duration) over the fabric's GPU-seconds between the first and the last arrival. Grows by
// `scale` under ScaleLoad. 0 when the jobs do not arrive over a span (fewer than two
// distinct arrival times) or the fabric has no GPUs.
double OfferedLoad(const Trace& trace, int64_t fabric_gpus);

// Derives again, for hosts of `shape`, every spec the degree rule made from a bare GPU
// count (a trace read before the fabric was known assumes 8-GPU hosts). Keeps each job's
// constraints (max_tier, mode, max_wait) and priority. InvalidArgument from the rule.
absl::Status ReshapeFor(Trace& trace, const NodeShape& shape);

// Sorts jobs by (arrival_s, id): the order the event loop needs.
void SortByArrival(Trace& trace);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_TRACE_H_
