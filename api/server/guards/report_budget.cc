#include "api/server/guards/report_budget.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace topoplace::server {
namespace {

// Buckets kept before full ones (idle reporters, indistinguishable from new ones) are
// dropped: the map stays bounded whatever names arrive.
constexpr size_t kMaxBuckets = 100'000;

}  // namespace

ReportBudget::Bucket ReportBudget::Refilled(const Bucket& b, absl::Time now) const {
  const double seconds = std::max(0.0, absl::ToDoubleSeconds(now - b.at));
  Bucket out;
  out.reports = std::min(options_.burst_reports,
                         b.reports + seconds / absl::ToDoubleSeconds(options_.per_report));
  out.bytes = std::min(options_.burst_bytes, b.bytes + seconds * options_.bytes_per_hour / 3600);
  out.at = std::max(now, b.at);
  return out;
}

absl::Status ReportBudget::Charge(absl::string_view reporter, size_t bytes, absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (buckets_.size() >= kMaxBuckets && !buckets_.contains(reporter)) {
    absl::erase_if(buckets_, [&](const auto& entry) {
      const Bucket b = Refilled(entry.second, now);
      return b.reports >= options_.burst_reports && b.bytes >= options_.burst_bytes;
    });
  }
  auto [it, inserted] =
      buckets_.try_emplace(reporter, Bucket{options_.burst_reports, options_.burst_bytes, now});
  Bucket b = Refilled(it->second, now);
  const double size = static_cast<double>(bytes);
  if (b.reports >= 1 && b.bytes >= size) {
    b.reports -= 1;
    b.bytes -= size;
    it->second = b;
    return absl::OkStatus();
  }
  const double wait_reports =
      b.reports >= 1 ? 0 : (1 - b.reports) * absl::ToDoubleSeconds(options_.per_report);
  const double wait_bytes = size <= b.bytes ? 0 : (size - b.bytes) * 3600 / options_.bytes_per_hour;
  if (inserted) buckets_.erase(it);  // unreachable with a sane budget; keep the map honest
  return absl::ResourceExhaustedError(absl::StrFormat(
      "'%s' is over its budget of %s: %.0f at once, then one per %s, and %.0f MiB at once, "
      "then %.0f MiB an hour (this one is %d bytes); retry in %.0f s",
      reporter, options_.what, options_.burst_reports, absl::FormatDuration(options_.per_report),
      options_.burst_bytes / (1 << 20), options_.bytes_per_hour / (1 << 20), bytes,
      std::ceil(std::max(wait_reports, wait_bytes))));
}

}  // namespace topoplace::server
