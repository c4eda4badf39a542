#include "scheduler/traffic/traffic_model.h"

#include <gtest/gtest.h>

#include "scheduler/mapping/rank_layout.h"

namespace topoplace::sched {
namespace {

JobSpec Parse(const char* spec) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(spec);
  EXPECT_TRUE(job.ok()) << job.status();
  return *job;
}

TEST(RankLayout, MegatronDefaultOrderPutsTpFastestAndPpSlowest) {
  const RankLayout layout(Parse("tp=8,pp=4,dp=2,cp=2"));
  EXPECT_EQ(layout.world_size(), 128);  // 8 * 2 * 1 * 2 * 4
  EXPECT_EQ(layout.stride(Dim::kTp), 1);
  EXPECT_EQ(layout.stride(Dim::kCp), 8);
  EXPECT_EQ(layout.stride(Dim::kEp), 16);
  EXPECT_EQ(layout.stride(Dim::kDp), 16);  // ep = 1
  EXPECT_EQ(layout.stride(Dim::kPp), 32);  // 8 * 2 * 1 * 2
  // rank 45 = tp 5 + 8 * (cp 1 + 2 * (dp 0 + 2 * pp 1)) = 5 + 8 + 32
  EXPECT_EQ(layout.Coord(45, Dim::kTp), 5);
  EXPECT_EQ(layout.Coord(45, Dim::kCp), 1);
  EXPECT_EQ(layout.Coord(45, Dim::kDp), 0);
  EXPECT_EQ(layout.Coord(45, Dim::kPp), 1);
  EXPECT_EQ(layout.Neighbor(45, Dim::kCp), 37);  // cp 1 -> 0 wraps: 45 - 8
  EXPECT_EQ(layout.Neighbor(45, Dim::kPp), 77);  // + 32
}

TEST(RankLayout, AlternativeOrderPutsDpSlowest) {
  const RankLayout layout(Parse("tp=8,pp=4,dp=2,order=tp-cp-ep-pp-dp"));
  EXPECT_EQ(layout.stride(Dim::kPp), 8);
  EXPECT_EQ(layout.stride(Dim::kDp), 32);  // 8 * 4
}

// 70B preset: h = 8192, s = 4096, b = 1, layers = 80, P = 70e9, m = 8, bf16 (2 bytes).
TEST(TrafficModel, MatchesTheSc21FormulasFor70b) {
  const TrafficModel t = BuildTrafficModel(Parse("tp=8,pp=4,dp=8,model=70b"));
  const double bsh = 1.0 * 4096 * 8192;  // 33,554,432 elements
  // TP: m * (l/p) * 8 b s h (t-1)/t * 2 B = 8 * 20 * 8 * bsh * 7/8 * 2 = 75,161,927,680 B.
  EXPECT_DOUBLE_EQ(t.per_rank_bytes[static_cast<int>(Dim::kTp)], 8 * 20 * 8 * bsh * 7 / 8 * 2);
  EXPECT_DOUBLE_EQ(t.pair(Dim::kTp), 75161927680.0);
  // DP: 2 (d-1)/d * P/(t p) * 2 B = 1.75 * 70e9 / 32 * 2 = 7,656,250,000 B to the successor.
  EXPECT_DOUBLE_EQ(t.pair(Dim::kDp), 7656250000.0);
  // PP: m * b s h / t * 2 B per direction = 8 * bsh / 8 * 2 = 67,108,864 B.
  EXPECT_DOUBLE_EQ(t.pair(Dim::kPp), 67108864.0);
  // Per rank on average 2 (p-1)/p directions: 67,108,864 * 1.5.
  EXPECT_DOUBLE_EQ(t.per_rank_bytes[static_cast<int>(Dim::kPp)], 67108864.0 * 1.5);
  EXPECT_EQ(t.pair(Dim::kCp), 0);
  EXPECT_EQ(t.pair(Dim::kEp), 0);
  // 256 ranks: TP 19.24 TB + DP 1.96 TB + PP 25.77 GB.
  EXPECT_DOUBLE_EQ(t.total_bytes, 256 * (75161927680.0 + 7656250000.0 + 67108864.0 * 1.5));
}

TEST(TrafficModel, ExplicitBytesReplaceTheModelPerGroup) {
  const TrafficModel t = BuildTrafficModel(Parse("tp=8,pp=2,dp=4,ep=4,dp_bytes=1e9,ep_bytes=3e9"));
  EXPECT_DOUBLE_EQ(t.pair(Dim::kDp), 1e9);  // ring: all to the successor
  EXPECT_DOUBLE_EQ(t.pair(Dim::kEp), 1e9);  // all-to-all: 3e9 over ep-1 = 3 peers
  EXPECT_GT(t.pair(Dim::kTp), 0);           // still from the (default) model
}

TEST(TrafficModel, SingleMemberDimensionsCarryNothing) {
  const TrafficModel t = BuildTrafficModel(Parse("tp=1,pp=1,dp=1,gpus_per_node=1"));
  EXPECT_EQ(t.total_bytes, 0);
}

}  // namespace
}  // namespace topoplace::sched
