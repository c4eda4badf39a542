// The daemon's latest refusals (api/server/adapters/refusal_log.h): newest first, the oldest
// dropped past the capacity, the total counting every one.
#include "api/server/adapters/refusal_log.h"

#include <gtest/gtest.h>

namespace topoplace::server {
namespace {

TEST(RefusalLog, KeepsTheNewestFirstAndDropsTheOldestPastItsCapacity) {
  RefusalLog log(2);
  EXPECT_TRUE(log.Newest().empty());
  for (const char* spec : {"tp=8,pp=1,dp=1", "tp=8,pp=2,dp=1", "tp=8,pp=3,dp=1"}) {
    log.Add({absl::UnixEpoch(), spec, "block", "no room"});
  }
  const std::vector<RefusalLog::Entry> newest = log.Newest();
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[0].job_spec, "tp=8,pp=3,dp=1");
  EXPECT_EQ(newest[1].job_spec, "tp=8,pp=2,dp=1");
  EXPECT_EQ(log.total(), 3);
}

}  // namespace
}  // namespace topoplace::server
