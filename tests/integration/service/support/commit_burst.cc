#include "tests/integration/service/support/commit_burst.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace topoplace::testing {
namespace {

std::set<std::string> GpuNames(const v1::Allocation& a) {
  std::set<std::string> out;
  for (const v1::GpuSlot& g : a.gpus()) out.insert(absl::StrCat(g.host(), "/gpu", g.gpu()));
  return out;
}

}  // namespace

bool Acknowledged::AwaitCommits(size_t count, std::chrono::seconds limit) {
  std::unique_lock<std::mutex> lock(mu);
  return changed.wait_for(lock, limit, [&] { return commits.size() >= count; });
}

void CommitBurst(const client::ClientOptions& options, int client_index, Acknowledged& acked) {
  const auto fail = [&](const absl::Status& status) {
    std::lock_guard<std::mutex> lock(acked.mu);
    acked.errors.push_back(absl::StrCat("client ", client_index, ": ", status.ToString()));
  };
  absl::StatusOr<std::unique_ptr<client::TopoplaceClient>> connected =
      client::TopoplaceClient::Connect(options);
  if (!connected.ok()) return fail(connected.status());
  client::TopoplaceClient& client = **connected;
  for (int i = 0; !acked.stop; ++i) {
    auto reserved = client.Reserve("tp=8,pp=1,dp=2", "", 600);
    if (!reserved.ok()) {
      // Fabric full: go on (others release); anything else ends this client.
      if (reserved.status().code() == absl::StatusCode::kResourceExhausted ||
          reserved.status().code() == absl::StatusCode::kAborted) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      return fail(reserved.status());
    }
    const std::string id = reserved->allocation().allocation_id();
    auto committed = client.Commit(id, absl::StrCat("slurm:", client_index, "-", i));
    if (!committed.ok()) return fail(committed.status());
    {
      std::lock_guard<std::mutex> lock(acked.mu);
      acked.commits[id] = *committed;
    }
    acked.changed.notify_all();
    if (i % 2 == 1) {  // release every other job so the fabric never stays full
      {
        std::lock_guard<std::mutex> lock(acked.mu);
        acked.release_sent.insert(id);
      }
      if (absl::Status released = client.Release(id).status(); !released.ok()) {
        return fail(released);
      }
      std::lock_guard<std::mutex> lock(acked.mu);
      acked.releases.insert(id);
    }
  }
}

void ExpectAcknowledgedCommitsKept(const v1::ListAllocationsResponse& live, Acknowledged& acked) {
  std::lock_guard<std::mutex> lock(acked.mu);
  std::map<std::string, v1::Allocation> after;
  std::set<std::string> held;
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  for (const v1::Allocation& a : live.allocations()) {
    after[a.allocation_id()] = a;
    for (const std::string& gpu : GpuNames(a)) {
      EXPECT_TRUE(held.insert(gpu).second) << gpu << " held twice after the disruption";
    }
    if (a.state() == v1::ALLOCATION_STATE_RESERVED) {
      EXPECT_GT(a.expires_unix_ms(), now_ms) << a.allocation_id() << " reserved but not expiring";
    } else {
      EXPECT_EQ(a.state(), v1::ALLOCATION_STATE_COMMITTED) << a.allocation_id();
    }
  }
  for (const auto& [id, committed] : acked.commits) {
    if (acked.releases.count(id)) {
      EXPECT_EQ(after.count(id), 0u) << id << " was released but is live again";
      continue;
    }
    // A release cut off by the disruption may or may not have been applied; both are right.
    if (acked.release_sent.count(id) && !after.count(id)) continue;
    auto it = after.find(id);
    ASSERT_NE(it, after.end()) << "acknowledged commit " << id << " is lost";
    EXPECT_EQ(it->second.state(), v1::ALLOCATION_STATE_COMMITTED) << id;
    EXPECT_EQ(it->second.external_id(), committed.external_id()) << id;
    EXPECT_EQ(GpuNames(it->second), GpuNames(committed)) << id;
  }
}

}  // namespace topoplace::testing
