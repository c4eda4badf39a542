// Leader election among topoplaced replicas on an etcd lease: the replica that creates the
// election key (bound to its lease) leads until the lease ends; the others read the key to
// name the leader and try again every `retry`. The leader renews its lease every third of
// its time to live and gives up writing (WriteFence fails) a quarter of the lease before
// its last renewal could run out, so it has stopped before another replica can win.
//
//   TP_ASSIGN_OR_RETURN(auto election, LeaderElection::Create(*etcd, {.key =
//   "/topoplace/leader"})); election->Campaign("10.0.0.5:7469");                     // once
//   clients can reach it there absl::StatusOr<Fence> fence = election->WriteFence();   //
//   Unavailable naming the leader
//
// Thread-safe. The destructor resigns (revokes the lease, so another replica takes over
// at once).
#ifndef TOPOPLACE_STORE_ETCD_LEADER_ELECTION_H_
#define TOPOPLACE_STORE_ETCD_LEADER_ELECTION_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/write_fence.h"

namespace topoplace::store {

struct ElectionOptions {
  std::string key;  // the election key, e.g. "/topoplace/leader"
  // The lease's time to live: how long a killed leader blocks writes at most. etcd refuses
  // leases shorter than 1.5 election timeouts (1.5 s with its defaults).
  absl::Duration lease_ttl = absl::Seconds(3);
  absl::Duration retry = absl::Milliseconds(250);  // a follower's pause between attempts
};

class LeaderElection final : public FenceSource {
 public:
  // An election that has not started: WriteFence fails until Campaign. InvalidArgument
  // for an empty key or a lease shorter than 2 s (its renewals would not fit).
  static absl::StatusOr<std::unique_ptr<LeaderElection>> Create(EtcdClient& etcd,
                                                                ElectionOptions options);
  // Starts campaigning in a background thread as `identity` (how followers name this
  // replica: its client address). Call once.
  void Campaign(std::string identity);
  ~LeaderElection() override;

  absl::StatusOr<Fence> WriteFence() override;
  void FenceLost(const Fence& fence) override;

  // Whether this replica leads now (WriteFence would succeed).
  bool leading();
  // The leader's identity as last read ("" while unknown).
  std::string leader();
  // Stops campaigning; a leader revokes its lease so another replica wins at once.
  void Resign();

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;
  LeaderElection(EtcdClient& etcd, ElectionOptions options);
  void Run();
  // One attempt to become leader; on failure remembers who leads (or why none is known).
  void Campaign();
  // One renewal of the leader's lease; steps down when it is gone or surely ended.
  void Renew();
  void StepDown(absl::string_view why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  EtcdClient& etcd_;
  const ElectionOptions options_;
  std::string identity_;  // set once by Campaign, before the thread starts
  absl::Mutex mu_;
  int64_t lease_ ABSL_GUARDED_BY(mu_) = 0;
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  Fence fence_ ABSL_GUARDED_BY(mu_);
  SteadyTime lease_deadline_ ABSL_GUARDED_BY(mu_);  // the lease surely lives until then
  std::string leader_ ABSL_GUARDED_BY(mu_);
  std::string why_not_ ABSL_GUARDED_BY(mu_);  // why there is no known leader
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_LEADER_ELECTION_H_
