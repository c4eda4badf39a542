#include "store/etcd/leader_election.h"

#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace topoplace::store {
namespace {

std::chrono::steady_clock::duration ToSteady(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(d));
}

}  // namespace

absl::StatusOr<std::unique_ptr<LeaderElection>> LeaderElection::Create(EtcdClient& etcd,
                                                                       ElectionOptions options) {
  if (options.key.empty()) return absl::InvalidArgumentError("leader election: expected a key");
  if (options.lease_ttl < absl::Seconds(2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("leader_lease_seconds: expected at least 2, got ",
                     absl::FormatDuration(options.lease_ttl)));
  }
  return std::unique_ptr<LeaderElection>(new LeaderElection(etcd, std::move(options)));
}

void LeaderElection::Campaign(std::string identity) {
  identity_ = std::move(identity);
  thread_ = std::thread([this] { Run(); });
}

LeaderElection::LeaderElection(EtcdClient& etcd, ElectionOptions options)
    : etcd_(etcd), options_(std::move(options)) {
  why_not_ = "this replica has not joined the election yet";
}

LeaderElection::~LeaderElection() { Resign(); }

void LeaderElection::Resign() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = std::exchange(lease_, 0);
    leading_ = false;
    why_not_ = "this replica resigned";
  }
  if (lease != 0) (void)etcd_.RevokeLease(lease);
}

absl::StatusOr<Fence> LeaderElection::WriteFence() {
  absl::MutexLock lock(&mu_);
  if (leading_ && std::chrono::steady_clock::now() < lease_deadline_) return fence_;
  if (leading_) {
    return absl::UnavailableError(absl::StrCat(
        "not the leader: this replica (", identity_,
        ") could not renew its etcd lease in time and stopped writing; retry on another "
        "replica"));
  }
  if (leader_.empty()) {
    return absl::UnavailableError(
        absl::StrCat("not the leader: no replica leads now (", why_not_, "); retry shortly"));
  }
  return absl::UnavailableError(
      absl::StrCat("not the leader: the leader is ", leader_, "; send writes there"));
}

void LeaderElection::FenceLost(const Fence& fence) {
  absl::MutexLock lock(&mu_);
  if (leading_ && fence_.create_revision == fence.create_revision) {
    StepDown("etcd refused a write: the election key changed");
  }
}

bool LeaderElection::leading() { return WriteFence().ok(); }

std::string LeaderElection::leader() {
  absl::MutexLock lock(&mu_);
  return leader_;
}

void LeaderElection::StepDown(absl::string_view why) {
  std::cerr << "topoplaced: " << identity_ << " stops leading: " << why << "\n";
  leading_ = false;
  leader_.clear();
  why_not_ = std::string(why);
  // The old lease is left to run out (it may be unreachable); a new one is granted.
  lease_ = 0;
}

void LeaderElection::Run() {
  while (!stop_.HasBeenNotified()) {
    bool leading = false;
    {
      absl::MutexLock lock(&mu_);
      leading = leading_;
    }
    if (leading) {
      Renew();
      stop_.WaitForNotificationWithTimeout(options_.lease_ttl / 3);
    } else {
      Campaign();
      bool won = false;
      {
        absl::MutexLock lock(&mu_);
        won = leading_;
      }
      if (!won) stop_.WaitForNotificationWithTimeout(options_.retry);
    }
  }
}

void LeaderElection::Campaign() {
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = lease_;
  }
  const SteadyTime granted_at = std::chrono::steady_clock::now();
  if (lease == 0) {
    absl::StatusOr<int64_t> granted = etcd_.GrantLease(options_.lease_ttl);
    if (!granted.ok()) {
      absl::MutexLock lock(&mu_);
      leader_.clear();
      why_not_ = std::string(granted.status().message());
      return;
    }
    lease = *granted;
    absl::MutexLock lock(&mu_);
    lease_ = lease;
    lease_deadline_ = granted_at + ToSteady(options_.lease_ttl - options_.lease_ttl / 4);
  } else {
    // A lease kept from an earlier attempt must still live for the whole fence window.
    absl::StatusOr<absl::Duration> left = etcd_.KeepAliveOnce(lease);
    absl::MutexLock lock(&mu_);
    if (!left.ok()) {
      lease_ = 0;
      why_not_ = std::string(left.status().message());
      return;
    }
    lease_deadline_ = granted_at + ToSteady(*left - options_.lease_ttl / 4);
  }
  etcdserverpb::TxnRequest txn;
  etcdserverpb::Compare* absent = txn.add_compare();
  absent->set_key(options_.key);
  absent->set_target(etcdserverpb::Compare::CREATE);
  absent->set_result(etcdserverpb::Compare::EQUAL);
  absent->set_create_revision(0);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(options_.key);
  put->set_value(identity_);
  put->set_lease(lease);
  txn.add_failure()->mutable_request_range()->set_key(options_.key);
  absl::StatusOr<etcdserverpb::TxnResponse> result = etcd_.Txn(txn);
  absl::MutexLock lock(&mu_);
  if (!result.ok()) {
    leader_.clear();
    why_not_ = std::string(result.status().message());
    return;
  }
  if (result->succeeded()) {
    leading_ = true;
    fence_ = {options_.key, result->header().revision(), lease};
    leader_ = identity_;
    std::cerr << "topoplaced: " << identity_ << " leads (election revision "
              << fence_.create_revision << ")\n";
    return;
  }
  const auto& range = result->responses(0).response_range();
  if (range.kvs_size() > 0) {
    leader_ = range.kvs(0).value();
  } else {
    leader_.clear();
    why_not_ = "the leader's lease just ended";
  }
}

void LeaderElection::Renew() {
  int64_t lease = 0;
  {
    absl::MutexLock lock(&mu_);
    lease = lease_;
  }
  const SteadyTime sent = std::chrono::steady_clock::now();
  absl::StatusOr<absl::Duration> left = etcd_.KeepAliveOnce(lease);
  absl::MutexLock lock(&mu_);
  if (!leading_ || lease_ != lease) return;  // stepped down meanwhile
  if (left.ok()) {
    // etcd counts the lease from when it handled the renewal, which is after `sent`; the
    // fence closes a quarter lease earlier still, leaving the renewal loop time to retry.
    lease_deadline_ = sent + ToSteady(*left - options_.lease_ttl / 4);
    return;
  }
  if (absl::IsNotFound(left.status())) {
    StepDown(absl::StrCat("its etcd lease ended: ", left.status().message()));
  } else if (std::chrono::steady_clock::now() >= lease_deadline_) {
    StepDown(absl::StrCat("etcd unreachable for the whole lease: ", left.status().message()));
  }
}

}  // namespace topoplace::store
