#include "scheduler/sim/job_progress.h"

#include <algorithm>
#include <cmath>

namespace topoplace::sched::sim {

double UsefulWork(const JobProgress& p, double done) {
  return p.checkpointed + std::clamp(done - p.restart_s, 0.0, p.work);
}

double SavedWork(const JobProgress& p, double useful, double interval) {
  return interval > 0 ? std::max(p.checkpointed, std::floor(useful / interval) * interval) : useful;
}

}  // namespace topoplace::sched::sim
