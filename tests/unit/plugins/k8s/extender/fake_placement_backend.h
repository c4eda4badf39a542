// An in-memory PlacementBackend for tests and benchmarks. It plans the first free hosts in
// fabric order: the job spec's `nodes=N` says how many (default 1), `exclude=a,b` (last
// key) keeps hosts out, `hosts=a,b` (last key) or the request's hosts keep it on those;
// a spec over 4,096 bytes is refused as topoplaced refuses it. Allocations a Reserve
// releases are released only if it succeeds, and their hosts count as free for it. Reservations
// expire on the shared clock like the daemon's. PlanPreemption answers `preemption` (set by a
// test).
//
// Thread-safe (one mutex).
#ifndef TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_FAKE_PLACEMENT_BACKEND_H_
#define TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_FAKE_PLACEMENT_BACKEND_H_

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "plugins/k8s/extender/placement_backend.h"

namespace topoplace::k8s::testing {

// A clock tests move by hand.
struct FakeClock {
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  absl::Time operator()() const { return now; }
};

class FakePlacementBackend final : public PlacementBackend {
 public:
  enum class State { kReserved, kCommitted, kReleased };
  struct Allocation {
    std::vector<std::string> hosts;
    State state = State::kReserved;
    std::string external_id;
    absl::Time expires;
  };

  FakePlacementBackend(std::vector<std::string> hosts, const FakeClock* clock)
      : hosts_(std::move(hosts)), clock_(clock) {}

  absl::StatusOr<GroupPlan> Reserve(const std::string& job_spec, absl::Duration ttl,
                                    const std::vector<std::string>& on_hosts,
                                    const std::vector<std::string>& releasing,
                                    double run_seconds) override {
    absl::MutexLock lock(&mu_);
    ++reserve_calls;
    specs.push_back(job_spec);
    runs.push_back(run_seconds);
    reserved_on.push_back(on_hosts);
    if (unavailable || refuse_reserves) return absl::UnavailableError("fake topoplaced is down");
    // As topoplaced's request limits (api/server/guards/request_limits.h).
    if (job_spec.size() > 4096) return absl::InvalidArgumentError("job_spec: over 4096 bytes");
    if (hard_tier_never_fits && !absl::StrContains(job_spec, "mode=soft")) {
      return absl::ResourceExhaustedError("no block has the free nodes (hard max_tier)");
    }
    int nodes = 1;
    std::vector<std::string> exclude;
    std::vector<std::string> only;
    std::vector<std::string>* list = nullptr;  // the host list being read
    for (absl::string_view token : absl::StrSplit(job_spec, ',')) {
      if (absl::ConsumePrefix(&token, "nodes=")) {
        if (!absl::SimpleAtoi(token, &nodes) || nodes <= 0) {
          return absl::InvalidArgumentError("nodes must be a positive integer");
        }
        list = nullptr;
      } else if (absl::ConsumePrefix(&token, "exclude=")) {
        list = &exclude;
        list->emplace_back(token);
      } else if (absl::ConsumePrefix(&token, "hosts=")) {
        list = &only;
        list->emplace_back(token);
      } else if (list != nullptr && !absl::StrContains(token, '=')) {
        list->emplace_back(token);
      } else {
        list = nullptr;
      }
    }
    if (!on_hosts.empty()) only = on_hosts;
    ReclaimExpired();
    GroupPlan plan;
    for (const std::string& host : hosts_) {
      if (static_cast<int>(plan.hosts.size()) == nodes) break;
      if (Busy(host, releasing) || std::count(exclude.begin(), exclude.end(), host) > 0) continue;
      if (!only.empty() && std::count(only.begin(), only.end(), host) == 0) continue;
      plan.hosts.push_back(host);
    }
    if (static_cast<int>(plan.hosts.size()) < nodes) {
      return absl::ResourceExhaustedError(absl::StrCat("needs ", nodes, " free nodes"));
    }
    // Released in the same change as the reservation is made, as topoplaced's ledger does.
    for (const std::string& id : releasing) {
      auto victim = allocations.find(id);
      if (victim != allocations.end()) victim->second.state = State::kReleased;
    }
    plan.allocation_id = absl::StrCat("alloc-", ++next_id_);
    plan.expires = clock_->now + ttl;
    allocations[plan.allocation_id] = {plan.hosts, State::kReserved, "", plan.expires};
    return plan;
  }

  absl::Status Commit(const std::string& id, const std::string& external_id) override {
    absl::MutexLock lock(&mu_);
    ++commit_calls;
    if (unavailable || fail_commits) return absl::UnavailableError("fake topoplaced is down");
    ReclaimExpired();
    auto it = allocations.find(id);
    if (it == allocations.end()) return absl::NotFoundError(id);
    if (it->second.state != State::kReserved &&
        !(it->second.state == State::kCommitted && it->second.external_id == external_id)) {
      return absl::FailedPreconditionError(absl::StrCat(id, " is not reserved"));
    }
    it->second.state = State::kCommitted;
    it->second.external_id = external_id;
    return absl::OkStatus();
  }

  absl::StatusOr<absl::Time> Renew(const std::string& id, absl::Duration ttl) override {
    absl::MutexLock lock(&mu_);
    ++renew_calls;
    if (unavailable) return absl::UnavailableError("fake topoplaced is down");
    ReclaimExpired();
    auto it = allocations.find(id);
    if (it == allocations.end()) return absl::NotFoundError(id);
    if (it->second.state != State::kReserved) {
      return absl::FailedPreconditionError(absl::StrCat(id, " is not reserved"));
    }
    it->second.expires = clock_->now + ttl;
    return it->second.expires;
  }

  absl::Status Release(const std::string& id) override {
    absl::MutexLock lock(&mu_);
    ++release_calls;
    if (unavailable) return absl::UnavailableError("fake topoplaced is down");
    auto it = allocations.find(id);
    if (it == allocations.end()) return absl::NotFoundError(id);
    it->second.state = State::kReleased;
    return absl::OkStatus();
  }

  absl::StatusOr<PreemptionChoice> PlanPreemption(const std::string& job_spec) override {
    absl::MutexLock lock(&mu_);
    preemption_specs.push_back(job_spec);
    if (unavailable) return absl::UnavailableError("fake topoplaced is down");
    if (!preemption.has_value()) return absl::ResourceExhaustedError("nothing to preempt");
    return *preemption;
  }

  absl::StatusOr<GroupPlan> FindCommitted(const std::string& external_id) override {
    absl::MutexLock lock(&mu_);
    if (unavailable) return absl::UnavailableError("fake topoplaced is down");
    for (const auto& [id, a] : allocations) {
      if (a.state == State::kCommitted && a.external_id == external_id) {
        return GroupPlan{id, a.hosts, absl::InfiniteFuture()};
      }
    }
    return absl::NotFoundError(external_id);
  }

  // Live (reserved, unexpired, or committed) allocations.
  int Live() {
    absl::MutexLock lock(&mu_);
    ReclaimExpired();
    int live = 0;
    for (const auto& [id, a] : allocations) live += a.state != State::kReleased;
    return live;
  }

  // Knobs and counters; set before use or read after (tests are single-threaded).
  bool unavailable = false;
  bool fail_commits = false;
  bool hard_tier_never_fits = false;  // refuse every spec without mode=soft
  bool refuse_reserves = false;       // Reserve alone answers Unavailable
  int reserve_calls = 0;
  int commit_calls = 0;
  int release_calls = 0;
  int renew_calls = 0;
  std::vector<std::string> specs;
  std::vector<double> runs;                           // each Reserve's run_seconds, in call order
  std::vector<std::vector<std::string>> reserved_on;  // each Reserve's hosts field
  std::vector<std::string> preemption_specs;
  std::optional<PreemptionChoice> preemption;  // what PlanPreemption answers
  std::map<std::string, Allocation> allocations;

 private:
  void ReclaimExpired() {
    for (auto& [id, a] : allocations) {
      if (a.state == State::kReserved && clock_->now >= a.expires) a.state = State::kReleased;
    }
  }
  // Whether a live allocation not in `releasing` holds `host`.
  bool Busy(const std::string& host, const std::vector<std::string>& releasing) const {
    for (const auto& [id, a] : allocations) {
      if (a.state != State::kReleased &&
          std::find(releasing.begin(), releasing.end(), id) == releasing.end() &&
          std::find(a.hosts.begin(), a.hosts.end(), host) != a.hosts.end()) {
        return true;
      }
    }
    return false;
  }

  absl::Mutex mu_;
  std::vector<std::string> hosts_;
  const FakeClock* clock_;
  int next_id_ = 0;
};

}  // namespace topoplace::k8s::testing

#endif  // TOPOPLACE_TESTS_UNIT_PLUGINS_K8S_EXTENDER_FAKE_PLACEMENT_BACKEND_H_
