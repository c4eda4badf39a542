// The daemon's change stream: numbered in publication order, a reader waits for what comes
// after the last number it saw, falls back to "resync" when it fell too far behind, and
// Close wakes everyone for good.
#include "api/server/console/change_feed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace topoplace::server {
namespace {

std::vector<std::string> Topics(const std::vector<ChangeFeed::Change>& changes) {
  std::vector<std::string> out;
  for (const ChangeFeed::Change& c : changes) out.push_back(c.topic);
  return out;
}

TEST(ChangeFeed, ReadersGetEveryChangeAfterTheLastTheySawInOrder) {
  ChangeFeed feed;
  EXPECT_EQ(feed.last(), 0u);
  EXPECT_EQ(feed.Publish(ChangeFeed::kAllocations), 1u);
  EXPECT_EQ(feed.Publish(ChangeFeed::kHealth), 2u);
  EXPECT_EQ(feed.Publish(ChangeFeed::kAllocations), 3u);
  EXPECT_THAT(Topics(feed.WaitAfter(0, absl::ZeroDuration())),
              ::testing::ElementsAre("allocations", "health", "allocations"));
  const std::vector<ChangeFeed::Change> after_two = feed.WaitAfter(2, absl::ZeroDuration());
  ASSERT_EQ(after_two.size(), 1u);
  EXPECT_EQ(after_two[0].seq, 3u);
}

TEST(ChangeFeed, NothingNewWaitsForTheTimeoutThenAnswersEmpty) {
  ChangeFeed feed;
  feed.Publish(ChangeFeed::kHealth);
  EXPECT_TRUE(feed.WaitAfter(1, absl::Milliseconds(20)).empty());
}

TEST(ChangeFeed, AWaitingReaderWakesOnPublish) {
  ChangeFeed feed;
  std::thread writer([&feed] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    feed.Publish(ChangeFeed::kAllocations);
  });
  EXPECT_THAT(Topics(feed.WaitAfter(0, absl::Seconds(60))), ::testing::ElementsAre("allocations"));
  writer.join();
}

TEST(ChangeFeed, AReaderTooFarBehindIsToldToResync) {
  ChangeFeed feed;
  for (size_t i = 0; i < ChangeFeed::kKept + 5; ++i) feed.Publish(ChangeFeed::kAllocations);
  const std::vector<ChangeFeed::Change> changes = feed.WaitAfter(0, absl::ZeroDuration());
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].topic, "resync");
  EXPECT_EQ(changes[0].seq, feed.last());
  // One that kept up still gets the changes themselves.
  EXPECT_EQ(feed.WaitAfter(feed.last() - 3, absl::ZeroDuration()).size(), 3u);
}

TEST(ChangeFeed, CloseWakesWaitingReadersForGood) {
  ChangeFeed feed;
  std::thread closer([&feed] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    feed.Close();
  });
  EXPECT_TRUE(feed.WaitAfter(0, absl::Seconds(60)).empty());
  closer.join();
  EXPECT_TRUE(feed.closed());
  feed.Publish(ChangeFeed::kHealth);
  EXPECT_TRUE(feed.WaitAfter(0, absl::Seconds(60)).empty()) << "closed: answers at once";
}

}  // namespace
}  // namespace topoplace::server
