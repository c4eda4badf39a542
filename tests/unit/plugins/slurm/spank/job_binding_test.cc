#include "plugins/slurm/spank/job_binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugins/slurm/spank/deferred_placement.h"

namespace topoplace::slurm {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kAlice = 1001, kMallory = 1666;

AllocationOwner Reserved(std::string request_id) {
  return AllocationOwner{"alloc-7", true, "", std::move(request_id)};
}

AllocationOwner Committed(std::string external_id) {
  return AllocationOwner{"alloc-7", false, std::move(external_id), SubmitRequestId(kAlice, 1)};
}

TEST(JobBinding, SubmitRequestIdCarriesTheUserAndANonce) {
  EXPECT_EQ(SubmitRequestId(1001, 0xabc), "slurm-submit:1001:0000000000000abc");
}

TEST(JobBinding, AJobCommitsAndReleasesWhatItsUserReservedOrWasReservedForIt) {
  for (BindAction action : {BindAction::kCommit, BindAction::kRelease}) {
    EXPECT_TRUE(CheckJobMayBind(Reserved(SubmitRequestId(kAlice, 9)), 42, kAlice, action).ok());
    EXPECT_TRUE(CheckJobMayBind(Reserved(StartRequestId(42)), 42, kAlice, action).ok());
    EXPECT_TRUE(CheckJobMayBind(Committed("slurm:42"), 42, kAlice, action).ok());
  }
}

// Hardening finding 2: another job's prolog committed a stranger's reservation to itself,
// and one job's epilog released another job's committed allocation.
TEST(JobBinding, AStrangersReservationOrAnotherJobsAllocationIsRefusedNamingBoth) {
  absl::Status steal =
      CheckJobMayBind(Reserved(SubmitRequestId(kAlice, 9)), 66, kMallory, BindAction::kCommit);
  EXPECT_EQ(steal.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(steal.message()), HasSubstr("alloc-7 is reserved as 'slurm-submit:1001"));
  EXPECT_THAT(std::string(steal.message()), HasSubstr("not job 66's (user 1666)"));
  absl::Status release = CheckJobMayBind(Committed("slurm:42"), 66, kMallory, BindAction::kRelease);
  EXPECT_EQ(release.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(release.message()), HasSubstr("committed to 'slurm:42'"));
  // The same user's other job cannot take a committed allocation either.
  EXPECT_FALSE(CheckJobMayBind(Committed("slurm:42"), 43, kAlice, BindAction::kRelease).ok());
  // Reserved for another job's start, or through the API without a Slurm key.
  EXPECT_FALSE(
      CheckJobMayBind(Reserved(StartRequestId(42)), 66, kMallory, BindAction::kCommit).ok());
  EXPECT_FALSE(CheckJobMayBind(Reserved("client-1234"), 66, kMallory, BindAction::kCommit).ok());
  EXPECT_FALSE(CheckJobMayBind(Reserved(""), 66, kMallory, BindAction::kRelease).ok());
  // A uid that is a prefix of another's does not match it.
  EXPECT_FALSE(
      CheckJobMayBind(Reserved(SubmitRequestId(10010, 1)), 66, 1001, BindAction::kCommit).ok());
}

}  // namespace
}  // namespace topoplace::slurm
