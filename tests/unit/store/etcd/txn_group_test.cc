// Grouping etcd transactions: which may share a group, the limits a group keeps, and how
// the group's answer is shared out.
#include "store/etcd/txn_group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/testing/etcd_txns.h"

namespace topoplace::store {
namespace {

using ::testing::UnorderedElementsAre;
using ::topoplace::testing::PutIfAbsent;

etcdserverpb::TxnRequest DeleteKey(const std::string& key) {
  etcdserverpb::TxnRequest txn;
  txn.add_success()->mutable_request_delete_range()->set_key(key);
  return txn;
}

TEST(TxnKeys, NamesEveryComparedWrittenAndDeletedKey) {
  etcdserverpb::TxnRequest txn = PutIfAbsent("a", "1");
  txn.add_success()->mutable_request_delete_range()->set_key("b");
  EXPECT_THAT(*TxnKeys(txn), UnorderedElementsAre("a", "b"));
}

TEST(TxnKeys, RangesReadsAndPreviousValuesCannotBeGrouped) {
  etcdserverpb::TxnRequest range = DeleteKey("a");
  range.mutable_success(0)->mutable_request_delete_range()->set_range_end("b");
  EXPECT_EQ(TxnKeys(range), std::nullopt);
  etcdserverpb::TxnRequest read;
  read.add_success()->mutable_request_range()->set_key("a");
  EXPECT_EQ(TxnKeys(read), std::nullopt);
  etcdserverpb::TxnRequest prev = PutIfAbsent("a", "1");
  prev.mutable_success(0)->mutable_request_put()->set_prev_kv(true);
  EXPECT_EQ(TxnKeys(prev), std::nullopt);
}

TEST(TxnGroup, TakesChangesOfDistinctKeysAndRefusesOneThatSharesAKey) {
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest b = PutIfAbsent("b", "2");
  const etcdserverpb::TxnRequest a_again = DeleteKey("a");
  TxnGroup group(TxnLimits{});
  EXPECT_TRUE(group.Add(a, 1, 0));
  EXPECT_TRUE(group.Add(b, 1, 0));
  EXPECT_FALSE(group.Add(a_again, 1, 0));
  EXPECT_EQ(group.size(), 2);
}

TEST(TxnGroup, AChangeThatCannotShareGoesAloneEvenFirst) {
  etcdserverpb::TxnRequest range = DeleteKey("a");
  range.mutable_success(0)->mutable_request_delete_range()->set_range_end("z");
  const etcdserverpb::TxnRequest b = PutIfAbsent("b", "2");
  TxnGroup alone(TxnLimits{});
  EXPECT_TRUE(alone.Add(range, 1, 0));
  EXPECT_FALSE(alone.Add(b, 1, 0));
  TxnGroup after(TxnLimits{});
  EXPECT_TRUE(after.Add(b, 1, 0));
  EXPECT_FALSE(after.Add(range, 1, 0));
}

TEST(TxnGroup, KeepsWithinEtcdsOperationAndByteLimitsWithTheReserve) {
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest b = PutIfAbsent("b", "2");
  const etcdserverpb::TxnRequest c = PutIfAbsent("c", "3");
  // Three compares with one kept back for the fence: two members fit in max_ops = 3.
  TxnGroup by_ops(TxnLimits{.max_ops = 3});
  EXPECT_TRUE(by_ops.Add(a, 1, 0));
  EXPECT_TRUE(by_ops.Add(b, 1, 0));
  EXPECT_FALSE(by_ops.Add(c, 1, 0));
  const size_t one = a.ByteSizeLong();
  TxnGroup by_bytes(TxnLimits{.max_bytes = 2 * one + 10});
  EXPECT_TRUE(by_bytes.Add(a, 1, 10));
  EXPECT_TRUE(by_bytes.Add(b, 1, 10));
  EXPECT_FALSE(by_bytes.Add(c, 1, 10));
  // The first member is taken whatever its size: etcd answers for it alone.
  TxnGroup tiny(TxnLimits{.max_ops = 1, .max_bytes = 1});
  EXPECT_TRUE(tiny.Add(a, 1, 10));
}

TEST(TxnGroup, CombinesComparesAndOperationsInOrderWithoutFailureReads) {
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  const etcdserverpb::TxnRequest d = DeleteKey("d");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(a, 1, 0));
  ASSERT_TRUE(group.Add(d, 1, 0));
  const etcdserverpb::TxnRequest combined = group.Combined();
  ASSERT_EQ(combined.compare_size(), 1);
  EXPECT_EQ(combined.compare(0).key(), "a");
  ASSERT_EQ(combined.success_size(), 2);
  EXPECT_EQ(combined.success(0).request_put().key(), "a");
  EXPECT_EQ(combined.success(1).request_delete_range().key(), "d");
  EXPECT_EQ(combined.failure_size(), 0);
}

TEST(TxnGroup, AloneAChangeIsSentAsItIs) {
  const etcdserverpb::TxnRequest a = PutIfAbsent("a", "1");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(a, 1, 0));
  EXPECT_EQ(group.Combined().SerializeAsString(), a.SerializeAsString());
}

TEST(TxnGroup, EachMemberGetsTheHeaderAndItsOwnOperationsAnswers) {
  etcdserverpb::TxnRequest two = PutIfAbsent("a", "1");
  two.add_success()->mutable_request_delete_range()->set_key("b");
  const etcdserverpb::TxnRequest one = DeleteKey("c");
  TxnGroup group(TxnLimits{});
  ASSERT_TRUE(group.Add(two, 1, 0));
  ASSERT_TRUE(group.Add(one, 1, 0));
  etcdserverpb::TxnResponse applied;
  applied.mutable_header()->set_revision(42);
  applied.set_succeeded(true);
  applied.add_responses()->mutable_response_put();
  applied.add_responses()->mutable_response_delete_range()->set_deleted(1);
  applied.add_responses()->mutable_response_delete_range()->set_deleted(7);
  const etcdserverpb::TxnResponse first = group.ShareOf(applied, 0);
  const etcdserverpb::TxnResponse second = group.ShareOf(applied, 1);
  EXPECT_TRUE(first.succeeded());
  EXPECT_EQ(first.header().revision(), 42);
  ASSERT_EQ(first.responses_size(), 2);
  EXPECT_EQ(first.responses(1).response_delete_range().deleted(), 1);
  ASSERT_EQ(second.responses_size(), 1);
  EXPECT_EQ(second.responses(0).response_delete_range().deleted(), 7);
  EXPECT_EQ(second.header().revision(), 42);
}

}  // namespace
}  // namespace topoplace::store
