// How running jobs share the fabric's links: each link direction's capacity is divided
// max-min fairly among the jobs whose traffic crosses it, by progressive filling (Bertsekas
// and Gallager, Data Networks, 2nd ed., section 6.5.2). Fairness is in each job's
// communication progress: every job gets the same fraction of the speed it would have
// alone on the fabric, raised together until some link is full; the jobs on that link keep
// their fraction, the others rise further, and no job exceeds its speed alone (fraction 1).
//
//   LinkSharing sharing({capacity_bytes_per_s...});       // one entry per link direction
//   sharing.Set(job, {{link_dir, bytes_per_iteration}, ...});
//   sharing.Remove(other_job);
//   absl::flat_hash_map<JobKey, double> f = sharing.Fractions();  // per job, in (0, 1]
//
// A job's communication time per iteration is then its time alone divided by its fraction.
// Max-min shares decompose over the groups of jobs linked by common resources, so a change
// needs only its group recomputed: FractionsAround(changed jobs) gives just those.
// Not thread-safe.
#ifndef TOPOPLACE_SCHEDULER_SIM_LINK_SHARING_H_
#define TOPOPLACE_SCHEDULER_SIM_LINK_SHARING_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace topoplace::sched::sim {

// Bytes one iteration of a job moves over one link direction (a "resource").
struct ResourceBytes {
  int32_t resource = -1;
  double bytes = 0;
};

class LinkSharing {
 public:
  using JobKey = int64_t;

  // `capacity` in bytes per second, one entry per resource; every entry > 0.
  explicit LinkSharing(std::vector<double> capacity);

  // Sets (or replaces) the traffic of `job`. Entries with bytes <= 0 are ignored; a job
  // with none communicates over no shared link and always gets fraction 1.
  // Precondition: every resource is in [0, capacity.size()).
  void Set(JobKey job, std::vector<ResourceBytes> demand);
  void Remove(JobKey job);

  // Lowers (or restores) a resource's capacity to `share` (in (0, 1]) of the capacity it
  // was made with: a degraded or rerouted link. Fractions stay relative to each job's
  // speed alone on the healthy fabric, so a job alone on a half-capacity bottleneck gets
  // 0.5. Call FractionsAround(Users(resource)) for the fractions this moves.
  void SetShare(int32_t resource, double share);
  // The jobs whose demand names `resource`.
  const std::vector<JobKey>& Users(int32_t resource) const { return users_[resource]; }

  // Seconds one iteration's communication takes for `job` alone on the healthy fabric:
  // the time of its most loaded resource. 0 for a job without network traffic.
  double AloneSeconds(JobKey job) const;
  // Every job's fraction of its speed alone, in (0, 1], by progressive filling.
  absl::flat_hash_map<JobKey, double> Fractions() const;
  // The fractions of the jobs that share a resource with one of `jobs`, directly or
  // through other jobs (and of `jobs` themselves, where still present): every fraction a
  // change to `jobs` can move. The same values Fractions() gives them.
  absl::flat_hash_map<JobKey, double> FractionsAround(const std::vector<JobKey>& jobs) const;
  // The jobs sharing at least one resource with `job` (not `job` itself), in key order.
  std::vector<JobKey> Neighbours(JobKey job) const;

 private:
  struct Job {
    std::vector<ResourceBytes> demand;
    double alone_rate = 0;  // iterations per second alone: 1 / AloneSeconds
  };
  using Entry = std::pair<const JobKey, Job>;
  // Progressive filling over `group` (jobs with traffic, closed under sharing a resource).
  void Fill(std::vector<const Entry*> rising, absl::flat_hash_map<JobKey, double>& fraction) const;

  std::vector<double> nominal_;   // as made: what "alone" is measured against
  std::vector<double> capacity_;  // now: nominal_ x share
  absl::flat_hash_map<JobKey, Job> jobs_;
  // Per resource, the jobs whose demand names it.
  std::vector<std::vector<JobKey>> users_;
  // FractionsAround's per-resource "already walked" marks, all false between calls.
  mutable std::vector<bool> walked_;
  // Fractions' per-resource scratch, zero between calls.
  mutable std::vector<double> frozen_load_, rising_rate_;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_LINK_SHARING_H_
