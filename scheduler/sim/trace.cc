#include "scheduler/sim/trace.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "base/status_macros.h"
#include "scheduler/sim/trace_csv.h"
#include "scheduler/sim/trace_native.h"

namespace topoplace::sched::sim {

absl::StatusOr<Trace> LoadTraceFile(const std::string& path) {
  // A million-job trace is about 100 MB; past 1 GiB it is not a trace.
  TP_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path, size_t{1} << 30, "trace file"));
  if (absl::StartsWith(text, kNativeTraceHeader)) return ParseNativeTrace(text, path);
  return ParseCsvTrace(text, path);
}

absl::Status ReshapeFor(Trace& trace, const NodeShape& shape) {
  for (TraceJob& job : trace.jobs) {
    if (job.derived_from_gpus == 0) continue;
    absl::StatusOr<JobSpec> spec = job.moe ? MoeJobForGpuCount(job.derived_from_gpus, shape)
                                           : JobForGpuCount(job.derived_from_gpus, shape);
    if (!spec.ok()) return spec.status();
    spec->max_tier = job.spec.max_tier;
    spec->mode = job.spec.mode;
    spec->max_wait_s = job.spec.max_wait_s;
    spec->priority = job.spec.priority;
    job.spec = *std::move(spec);
  }
  return absl::OkStatus();
}

absl::Status ScaleLoad(Trace& trace, double scale) {
  if (!(scale > 0) || scale > 1e9) {
    return absl::InvalidArgumentError(
        absl::StrCat("load scale: expected a number in (0, 1e9], got ", scale));
  }
  for (TraceJob& job : trace.jobs) job.arrival_s /= scale;
  return absl::OkStatus();
}

double OfferedLoad(const Trace& trace, int64_t fabric_gpus) {
  if (trace.jobs.empty() || fabric_gpus <= 0) return 0;
  double first = trace.jobs.front().arrival_s, last = first, gpu_seconds = 0;
  for (const TraceJob& job : trace.jobs) {
    first = std::min(first, job.arrival_s);
    last = std::max(last, job.arrival_s);
    gpu_seconds += static_cast<double>(job.spec.world_size()) * job.duration_s;
  }
  if (!(last > first)) return 0;
  return gpu_seconds / (static_cast<double>(fabric_gpus) * (last - first));
}

void SortByArrival(Trace& trace) {
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
}

}  // namespace topoplace::sched::sim
