// Group commit against a real etcd on loopback: a group applies every member's change or,
// when one member's compare fails, none, and each member then runs alone; a lost fence
// holds for every member; concurrent changes all apply and a conflict fails only its own.
#include "store/etcd/group_commit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/etcd/believed_fence.h"
#include "tests/integration/etcd/etcd_cluster.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/etcd_txns.h"

namespace topoplace::store {
namespace {

using ::testing::HasSubstr;
using ::topoplace::testing::PutIfAbsent;

using ::topoplace::testing::BelievedFence;

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::EtcdCluster::Available()) GTEST_SKIP() << "etcd is not installed";
    ASSERT_TRUE(etcd_.Start().ok());
    absl::StatusOr<std::unique_ptr<EtcdClient>> client =
        EtcdClient::Connect({.endpoints = {etcd_.endpoint(0)}});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    ASSERT_TRUE(client_->Put("fence", "leader").ok());
    absl::StatusOr<std::optional<KeyValue>> fence = client_->Get("fence");
    ASSERT_TRUE(fence.ok() && fence->has_value());
    fence_ = Fence{"fence", (*fence)->create_revision, 0};
  }

  bool Exists(const std::string& key) {
    absl::StatusOr<std::optional<KeyValue>> kv = client_->Get(key);
    EXPECT_TRUE(kv.ok()) << kv.status();
    return kv.ok() && kv->has_value();
  }

  testing::TempDir dir_;
  testing::EtcdCluster etcd_{dir_.path()};
  std::unique_ptr<EtcdClient> client_;
  Fence fence_;
};

TEST_F(GroupCommitTest, AGroupAppliesEveryMembersChangeInOneRevision) {
  BelievedFence source(fence_);
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest b = PutIfAbsent("b", "2");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(a, 1, 512));
  ASSERT_TRUE(group.Add(b, 1, 512));
  const std::vector<GroupAnswer> answers = SendGroup(*client_, source, fence_, group);
  ASSERT_EQ(answers.size(), 2u);
  for (const GroupAnswer& answer : answers) {
    ASSERT_TRUE(answer.answer.has_value());
    ASSERT_TRUE(answer.answer->ok()) << answer.answer->status();
    EXPECT_TRUE((*answer.answer)->succeeded());
    EXPECT_EQ((*answer.answer)->responses_size(), 1);
  }
  EXPECT_EQ((*answers[0].answer)->header().revision(), (*answers[1].answer)->header().revision());
  EXPECT_TRUE(Exists("a"));
  EXPECT_TRUE(Exists("b"));
}

TEST_F(GroupCommitTest, OneMembersFailedCompareAppliesNothingAndSendsEveryMemberAlone) {
  ASSERT_TRUE(client_->Put("taken", "7").ok());
  BelievedFence source(fence_);
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest taken = PutIfAbsent("taken", "8");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(a, 1, 512));
  ASSERT_TRUE(group.Add(taken, 1, 512));
  const std::vector<GroupAnswer> answers = SendGroup(*client_, source, fence_, group);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_FALSE(answers[0].answer.has_value());
  EXPECT_FALSE(answers[1].answer.has_value());
  EXPECT_FALSE(Exists("a"));
  EXPECT_FALSE(source.lost());
}

TEST_F(GroupCommitTest, ALostFenceHoldsForEveryMemberAndNothingIsWritten) {
  const Fence stale{"fence", fence_.create_revision - 1, 0};
  BelievedFence source(stale);
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest b = PutIfAbsent("b", "2");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(a, 1, 512));
  ASSERT_TRUE(group.Add(b, 1, 512));
  const std::vector<GroupAnswer> answers = SendGroup(*client_, source, stale, group);
  for (const GroupAnswer& answer : answers) {
    ASSERT_TRUE(answer.answer.has_value());
    EXPECT_TRUE(absl::IsUnavailable(answer.answer->status()));
    EXPECT_THAT(answer.answer->status().message(), HasSubstr("not the leader"));
    EXPECT_TRUE(answer.fence_lost);
  }
  EXPECT_TRUE(source.lost());
  EXPECT_FALSE(Exists("a"));
  EXPECT_FALSE(Exists("b"));
}

TEST_F(GroupCommitTest, ConcurrentChangesAllApplyAndAConflictFailsOnlyItsOwn) {
  ASSERT_TRUE(client_->Put("taken", "7").ok());
  BelievedFence source(fence_);
  GroupCommit commit(*client_, source, TxnLimits{});
  constexpr int kThreads = 16;
  constexpr int kChangesEach = 20;
  std::atomic<int> applied{0};
  std::atomic<int> refused_with_holder{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kChangesEach; ++i) {
        // Every fifth change of every thread asks for a key that is already there.
        const bool conflict = i % 5 == 4;
        const etcdserverpb::TxnRequest txn =
            conflict ? PutIfAbsent("taken", "8") : PutIfAbsent(absl::StrCat("k", t, "-", i), "v");
        absl::StatusOr<etcdserverpb::TxnResponse> r = commit.Run(fence_, txn);
        ASSERT_TRUE(r.ok()) << r.status();
        if (r->succeeded()) {
          EXPECT_FALSE(conflict);
          ++applied;
        } else {
          EXPECT_TRUE(conflict);
          // Its own failure read, answered as if it had been sent alone.
          const auto& range = r->responses(0).response_range();
          if (range.kvs_size() == 1 && range.kvs(0).value() == "7") ++refused_with_holder;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(applied.load(), kThreads * kChangesEach * 4 / 5);
  EXPECT_EQ(refused_with_holder.load(), kThreads * kChangesEach / 5);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kChangesEach; ++i) {
      EXPECT_EQ(Exists(absl::StrCat("k", t, "-", i)), i % 5 != 4);
    }
  }
  const GroupCommit::Counts counts = commit.counts();
  EXPECT_EQ(counts.changes, kThreads * kChangesEach);
  std::printf("%lld changes in %lld etcd transactions (%lld groups sent back to run alone)\n",
              static_cast<long long>(counts.changes), static_cast<long long>(counts.transactions),
              static_cast<long long>(counts.regrouped));
}

}  // namespace
}  // namespace topoplace::store
