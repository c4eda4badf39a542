#include "scheduler/placement/faster_domains.h"

#include "absl/strings/str_format.h"
#include "scheduler/framework/nvlink_domains.h"

namespace topoplace::sched {

std::optional<FasterDomains> WaitForFasterDomains(const Fabric& fabric, const Inventory& inv,
                                                  const JobSpec& job, const QueueOutlook& outlook,
                                                  double reference_s, const StepOn& now,
                                                  const StepOn& then) {
  if (!outlook.known() || !(outlook.run_s > 0) || job.mode != ConstraintMode::kHard ||
      !inv.nvlink_level() || !(reference_s > 0) || !(now.step_s > then.step_s) ||
      then.domains < 1) {
    return std::nullopt;
  }
  FasterDomains w;
  w.domains = then.domains;
  w.slowdown_now = now.step_s / reference_s;
  w.slowdown_then = then.step_s / reference_s;
  w.lost_s = outlook.run_s * (now.step_s - then.step_s) / reference_s;
  w.wait_s = WholeDomainsFreeIn(fabric, inv, outlook, then.domains);
  if (!(w.wait_s < w.lost_s)) return std::nullopt;
  if (job.max_wait_s && w.wait_s > *job.max_wait_s) return std::nullopt;
  return w;
}

std::string DescribeWait(const FasterDomains& w) {
  return absl::StrFormat(
      "placed now the job would run %.2fx its reference step (its busiest cable alone), on %d "
      "wholly free NVLink domains %.2fx: it waits for them, expected in %.1f h, less than the "
      "%.1f h of run time placing now would lose (mode=soft, or max_wait once it has waited "
      "that long, places it now)",
      w.slowdown_now, w.domains, w.slowdown_then, w.wait_s / 3600, w.lost_s / 3600);
}

}  // namespace topoplace::sched
