// A burst of real work from many clients, and the check that a disruption in the middle
// of it (a killed daemon, a killed leader) lost nothing that was acknowledged: used by the
// crash test (one daemon, SIGKILL, restart) and the HA tests (replicas on etcd).
//
//   Acknowledged acked;
//   std::thread t([&] { CommitBurst(options, 0, acked); });
//   ... disrupt ...;  acked.stop = true;  t.join();
//   ExpectAcknowledgedCommitsKept(*client->ListAllocations(), acked);
#ifndef TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_COMMIT_BURST_H_
#define TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_COMMIT_BURST_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "client/topoplace_client.h"

namespace topoplace::testing {

struct Acknowledged {
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, v1::Allocation> commits;  // id -> as acknowledged
  std::set<std::string> release_sent;             // ids a release was sent for
  std::set<std::string> releases;                 // ids whose release was acknowledged
  std::vector<std::string> errors;                // the call that ended each client's loop
  std::atomic<bool> stop{false};

  // Waits (at most `limit`) until `count` commits were acknowledged; false on timeout.
  bool AwaitCommits(size_t count, std::chrono::seconds limit);
};

// Reserves 16-GPU jobs, commits each to "slurm:<client>-<i>" and releases every other one,
// recording what was acknowledged, until `acked.stop` or the first call that fails for
// another reason than a full fabric (recorded in `acked.errors`).
void CommitBurst(const client::ClientOptions& options, int client_index, Acknowledged& acked);

// Checks the live allocations after the disruption against what was acknowledged: every
// acknowledged commit not released is there, committed, with its external id and GPUs;
// no acknowledged release is live again; no GPU is held twice; reservations still expire.
void ExpectAcknowledgedCommitsKept(const v1::ListAllocationsResponse& live, Acknowledged& acked);

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_INTEGRATION_SERVICE_SUPPORT_COMMIT_BURST_H_
