#include "plugins/slurm/hostlist.h"

#include <gtest/gtest.h>

namespace topoplace::slurm {
namespace {

TEST(Hostlist, FoldsRunsOfPaddedNumbersIntoRanges) {
  EXPECT_EQ(CompressHostlist({"b00-n000", "b00-n001", "b00-n002", "b00-n007", "b00-n008"}),
            "b00-n[000-002,007-008]");
}

TEST(Hostlist, KeepsPrefixesAndWidthsApartInFirstSeenOrder) {
  EXPECT_EQ(CompressHostlist({"gpu10", "login", "n1", "gpu9", "n2", "gpu010"}),
            "gpu[9-10],login,n[1-2],gpu010");
}

TEST(Hostlist, UnpaddedNumbersJoinAPaddedGroupOfTheSameWidth) {
  EXPECT_EQ(CompressHostlist({"b00-n098", "b00-n099", "b00-n100", "b00-n101"}), "b00-n[098-101]");
}

TEST(Hostlist, SingleNameHasNoBrackets_DuplicatesCollapse) {
  EXPECT_EQ(CompressHostlist({"node07", "node07"}), "node07");
  EXPECT_EQ(CompressHostlist({}), "");
}

}  // namespace
}  // namespace topoplace::slurm
