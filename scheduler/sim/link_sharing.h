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
  std::vector<JobKey> Users(int32_t resource) const;

  // Seconds one iteration's communication takes for `job` alone on the healthy fabric:
  // the time of its most loaded resource. 0 for a job without network traffic.
  double AloneSeconds(JobKey job) const;
  // Every job's fraction of its speed alone, in (0, 1], by progressive filling: O(D log D)
  // for D demand entries (each resource's fill level kept in a heap), not O(D) per level.
  absl::flat_hash_map<JobKey, double> Fractions() const;
  // The fractions of the jobs that share a resource with one of `jobs`, directly or
  // through other jobs (and of `jobs` themselves, where still present): every fraction a
  // change to `jobs` can move. The same values Fractions() gives them.
  absl::flat_hash_map<JobKey, double> FractionsAround(const std::vector<JobKey>& jobs) const;
  // The jobs sharing at least one resource with `job` (not `job` itself), in key order.
  std::vector<JobKey> Neighbours(JobKey job) const;

 private:
  // A resource is full once its load reaches this share of its capacity (the tolerance of
  // the floating-point sums).
  static constexpr double kFull = 1 - 1e-9;
  // A resource whose users all at their speed alone load it below this share of its
  // capacity is never full (fractions are at most 1): no fraction depends on it. The margin
  // is far above the rounding of the sums.
  static constexpr double kSlack = 1 - 1e-6;
  // Margin for rounding between a resource's level in a heap and the test of fullness.
  static constexpr double kMargin = 1e-12;
  // One demand entry of a job on a resource's list of users.
  struct Use {
    int32_t slot = -1;   // the job's slot
    int32_t entry = -1;  // its index in the job's demand
  };
  // A job in a dense slot, so that the walks below mark and visit jobs by index. A
  // resource no other job uses (its "own") fills at the job's own speed alone, a fraction
  // of at least 1 but for rounding, and one that its users together cannot fill at their
  // speeds alone is never full: such entries only matter through the own one that fills
  // first, so Fill and FractionsAround walk the shared entries and that one alone.
  struct Job {
    JobKey key = -1;  // -1: a free slot
    std::vector<ResourceBytes> demand;
    double alone_rate = 0;  // iterations per second alone: 1 / AloneSeconds
    // Indices of the demand entries on resources that other entries use too (of other
    // jobs, or of this one naming a resource twice) and that may be full.
    std::vector<int32_t> shared;
    // Per demand entry: its position in `shared`, or -1 where it is quiet.
    std::vector<int32_t> where;
    // The entries that would fill at a level of at most 1 were the job their only user
    // (capacity / bytes per second; fractions never pass 1, so no other own entry is
    // ever full), ascending by that level; each entry's position there (-1: not one);
    // and the first position that may be an own entry (those before it are all shared).
    std::vector<int32_t> tight, rank;
    size_t own_head = 0;
    // Whether the demand names a resource twice: then `shared` stays in entry order, the
    // order in which the plain filling sums a job's bytes on one resource.
    bool repeats = false;
    // Scratch of FractionsAround and Fill, false between calls.
    mutable bool seen = false, rising = false;
  };
  // Per resource, what the filling reads of it, in one 32-byte record apart from the lists
  // of users: its capacity as made (what "alone" is measured against) and now
  // (as made x share), the bytes per second its users would move at their speeds alone
  // (kept as they come and go: its rounding is far below kSlack's margin), and its user
  // where it has exactly one (then `users_` holds none): most resources are one job's
  // NIC cables and uplinks, and a start and a stop then touch nothing else of them.
  struct Resource {
    double nominal = 0, capacity = 0, full_speed = 0;
    Use solo;  // slot kNoUser: none; kManyUsers: two or more, in users_
  };
  static constexpr int32_t kNoUser = -1, kManyUsers = -2;
  // The level at which demand entry `e` of `j` fills if `j` is its only user.
  double OwnFill(const Job& j, int32_t e) const;
  // Finds `j`'s tight entries (after a capacity change too) and the first own one.
  void FindTight(Job& j);
  // Adds entry `e` to `j.tight` (its level to `fill`) if it is one.
  void Tighten(Job& j, int32_t e, std::vector<double>& fill) const;
  // Orders `j.tight` by `fill` (stable), ranks it and finds the first own entry.
  static void SortTight(Job& j, const std::vector<double>& fill);
  // Makes the entries on `resource` shared where it may be full with them (two or more
  // entries whose loads at full speed reach kSlack of its capacity), else quiet ("own"):
  // all of them where that changed, else `added` (an entry just set), if not null.
  void Classify(int32_t resource, const Use* added);
  void MakeShared(Use use);
  // Rebuilds `j.shared` (and `where`) in entry order.
  static void InEntryOrder(Job& j);
  void MakeOwn(Use use);
  // Adds `use` to the users of `resource`; returns whether there are others now, and
  // sets `again` if its job already was one.
  bool AddUser(int32_t resource, Use use, bool& again);
  // Takes every use of `slot` off `resource` (its full speed with it where that was the
  // only user); returns whether there were others.
  bool RemoveUser(int32_t resource, int32_t slot);
  size_t UserCount(int32_t resource) const;
  // Calls `visit(const Use&)` for every user of `resource`.
  template <typename Visit>
  void ForEachUser(int32_t resource, Visit visit) const {
    const Use& solo = resources_[static_cast<size_t>(resource)].solo;
    if (solo.slot >= 0) visit(solo);
    if (solo.slot != kManyUsers) return;
    for (const Use& use : users_[static_cast<size_t>(resource)]) visit(use);
  }
  // The first own entry of `j` in fill order, or -1 (nothing of it is its own).
  int32_t FirstOwn(const Job& j) const;
  // Whether one of `j`'s own resources is full at `level`.
  bool OwnFullAt(const Job& j, double level) const;
  // Progressive filling over `group` (slots of jobs with traffic, closed under sharing a
  // resource); see link_sharing.cc.
  void Fill(std::vector<int32_t> group, absl::flat_hash_map<JobKey, double>& fraction) const;

  std::vector<Resource> resources_;
  std::vector<Job> jobs_;
  std::vector<int32_t> free_slots_;
  absl::flat_hash_map<JobKey, int32_t> slot_;
  // Per resource, the demand entries that name it where two or more do, and whether they
  // are shared (Classify). A shared resource always has its users here, so the walks over
  // shared entries (Neighbours, FractionsAround, Fill) read these lists alone.
  std::vector<std::vector<Use>> users_;
  std::vector<bool> binding_;
  // Per resource scratch of FractionsAround and Fill, zero (false) between calls:
  // allocating and clearing one entry per cable direction of a 28k-GPU fabric at every job
  // start and end would cost more than the filling itself.
  mutable std::vector<bool> walked_;
  mutable std::vector<double> frozen_load_, rising_rate_;
  mutable std::vector<int32_t> rising_users_;
  mutable std::vector<uint32_t> version_;
};

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_LINK_SHARING_H_
