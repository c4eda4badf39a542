// Writes one comparison (one trace on one fabric, every policy) as a Markdown report with
// SVG charts into a directory:
//   report.md            inputs, two tables (placement quality, scheduling), the charts
//   queue_cdf.svg        CDF of queueing delay per policy
//   jct_cdf.svg          CDF of job completion time per policy
//   spine_bytes.svg      total spine bytes per policy
//   utilisation.svg      GPU utilisation over time per policy
// The numbers are exactly those of `results`; nothing is edited or rounded away beyond
// display precision.
#ifndef TOPOPLACE_SCHEDULER_SIM_REPORT_WRITER_H_
#define TOPOPLACE_SCHEDULER_SIM_REPORT_WRITER_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/metrics_json.h"
#include "scheduler/sim/sim_result.h"

namespace topoplace::sched::sim {

// `results[i]` and `metrics[i]` belong to the same policy. `command` is the command line
// that regenerates the report, quoted in it. Creates `dir` if needed; Internal if a file
// cannot be written.
absl::Status WriteReport(const std::string& dir, const RunInfo& info,
                         const std::vector<SimResult>& results,
                         const std::vector<PolicyMetrics>& metrics, const std::string& command);

// Writes `text` to `path` (truncating); Internal naming the path if it cannot.
absl::Status WriteTextFile(const std::filesystem::path& path, const std::string& text);
// Creates `dir` and its parents; Internal naming it if it cannot.
absl::Status CreateReportDir(const std::filesystem::path& dir);

// Seconds as hours with two decimals, as the report tables show them.
std::string FormatHours(double seconds);
// How cross-rail traffic was routed, for the inputs table.
std::string RoutingText(const RunInfo& info);

// One line saying which network model and constants produced the figures.
std::string NetworkModelText(const RunInfo& info);

// The Markdown of report.md alone (for tests).
std::string RenderReportMarkdown(const RunInfo& info, const std::vector<PolicyMetrics>& metrics,
                                 const std::string& command);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_REPORT_WRITER_H_
