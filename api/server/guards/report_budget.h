// How much a reporter may send: a token bucket per reporter (a host name), counted both in
// reports and in bytes, so one credential - a stolen host token, a looping agent - cannot
// fill the store behind it. Hardening finding 3: one host credential wrote 124 one-MiB
// host reports into etcd in 5 s and etcd refused every write once its quota was full.
//
//   ReportBudget budget(kHostReportBudget);
//   TP_RETURN_IF_ERROR(budget.Charge("b00-n005", report.size(), absl::Now()));
//
// A refused charge takes nothing from the bucket. Thread-safe.
#ifndef TOPOPLACE_API_SERVER_GUARDS_REPORT_BUDGET_H_
#define TOPOPLACE_API_SERVER_GUARDS_REPORT_BUDGET_H_

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace topoplace::server {

struct ReportBudgetOptions {
  const char* what = "reports";                   // named in the refusal
  double burst_reports = 6;                       // a full bucket
  absl::Duration per_report = absl::Seconds(10);  // one report's worth refills in this
  double burst_bytes = 4 << 20;
  double bytes_per_hour = 16 << 20;
};

// Host reports (ReportHost): an agent sends one at start and on every change of its ports
// (LLDP neighbours, link state), a few KB each (a DGX's is about 2 KB). 6 at once, one per
// 10 s, and 16 MiB an hour: an honest agent never meets it, and one host adds at most
// 4 MiB + 16 MiB/h to the store's history.
inline constexpr ReportBudgetOptions kHostReportBudget{};
// Probe results and port counters: an agent sends a batch of each every probe interval
// (10 s by default, telemetry::kMinProbeInterval = 1 s at the shortest); 30 at once and
// two a second, so an agent at its shortest interval never meets it. (One a second let
// such an agent's bucket run dry after 30 s, and its rounds were refused from then on.)
inline constexpr ReportBudgetOptions kTelemetryBudget{.what = "telemetry reports",
                                                      .burst_reports = 30,
                                                      .per_report = absl::Milliseconds(500),
                                                      .burst_bytes = 64 << 20,
                                                      .bytes_per_hour = 1024.0 * (1 << 20)};

class ReportBudget {
 public:
  explicit ReportBudget(ReportBudgetOptions options) : options_(options) {}

  // Takes one report of `bytes` from `reporter`'s bucket. ResourceExhausted naming the
  // reporter, the budget and when to retry when the bucket lacks either.
  absl::Status Charge(absl::string_view reporter, size_t bytes, absl::Time now);

 private:
  struct Bucket {
    double reports = 0;
    double bytes = 0;
    absl::Time at;
  };
  // The bucket refilled up to `now`.
  Bucket Refilled(const Bucket& b, absl::Time now) const;

  const ReportBudgetOptions options_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_GUARDS_REPORT_BUDGET_H_
