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

// DeepSeek-V3 as its report trained it (arXiv 2412.19437 sec. 3.2: PP16, EP64, no TP;
// 2,048 GPUs, so DP 2), one 4K sequence per micro-batch, m = 8, bf16 on the wire. By hand:
// a rank holds 4096 tokens of 7168 elements; each goes to 8 experts, 63/64 of them on other
// ranks; 4 all-to-alls (dispatch and combine, forward and backward) per MoE layer; 58 of
// the 61 layers are MoE, 58/16 = 3.625 per stage. Per MoE layer and micro-batch that is
// 4 x 4096 x 7168 x 8 x 63/64 x 2 B = 1,849,688,064 B (1.85 GB) per rank.
TEST(TrafficModel, DeepSeekV3ExpertParallelBytesMatchTheHandComputedFigure) {
  const TrafficModel t =
      BuildTrafficModel(Parse("tp=1,pp=16,dp=2,ep=64,gpus_per_node=8,model=deepseek-v3"));
  const double per_layer = 4.0 * 4096 * 7168 * 8 * 63 / 64 * 2;
  EXPECT_DOUBLE_EQ(per_layer, 1849688064.0);
  EXPECT_DOUBLE_EQ(t.pair(Dim::kEp), 8 * 58.0 / 16 * per_layer / 63);  // all-to-all over 64
  // Gradients: the 17.1e9 dense parameters (1/16 per stage) are the same on all 64 ranks of
  // an EP group, which reduce-scatter and all-gather them in a ring: 2 x 63/64 of them to
  // the ring successor; then DP's 2 ranks all-reduce what each holds, 1/64 of the stage's
  // 671e9: 2 x 1/2 x 671e9 / 64 / 16 x 2 B.
  const double dense_ring = 2 * 63.0 / 64 * (671e9 - 653.9e9) / 16 * 2;
  EXPECT_DOUBLE_EQ(t.ring_pair(Dim::kEp), dense_ring);
  EXPECT_DOUBLE_EQ(t.per_rank_bytes[static_cast<int>(Dim::kEp)],
                   8 * 58.0 / 16 * per_layer + dense_ring);
  EXPECT_DOUBLE_EQ(t.pair(Dim::kDp), 2 * 0.5 * 671e9 / 64 / 16 * 2);
}

// Every rank of a CP group holds the same parameters: their gradients are reduce-scattered
// and all-gathered around the CP ring (2 x (c-1)/c of the device's share) before DP
// all-reduces the 1/c each holds. 70B over t x p = 32: 2.1875e9 parameters per device.
TEST(TrafficModel, ContextParallelRanksReduceTheirGradientsBeforeDataParallel) {
  const TrafficModel with_cp = BuildTrafficModel(Parse("tp=8,pp=4,dp=2,cp=2,model=70b"));
  const TrafficModel without = BuildTrafficModel(Parse("tp=8,pp=4,dp=2,model=70b"));
  const double device = 70e9 / 32 * 2;  // bytes of gradients a device holds
  const double ring_attention = without.pair(Dim::kCp);
  EXPECT_EQ(ring_attention, 0);
  EXPECT_DOUBLE_EQ(with_cp.pair(Dim::kCp) - 8 * 20 * 3 * 1 * 2 * (4096.0 / 2) * 8192 / 8 * 2,
                   2 * 0.5 * device);
  EXPECT_DOUBLE_EQ(without.pair(Dim::kDp), 2 * 0.5 * device);
  EXPECT_DOUBLE_EQ(with_cp.pair(Dim::kDp), 2 * 0.5 * device / 2);
  EXPECT_EQ(with_cp.ring_pair(Dim::kEp), 0);  // no EP, no dense ring beside it
}

// A job that states its DP or EP bytes has said what its gradient reduction costs: no
// ring is added beside EP's all-to-all.
TEST(TrafficModel, ExplicitBytesReplaceTheDenseGradientRing) {
  EXPECT_GT(BuildTrafficModel(Parse("tp=4,pp=1,dp=2,ep=8,model=70b")).ring_pair(Dim::kEp), 0);
  EXPECT_EQ(
      BuildTrafficModel(Parse("tp=4,pp=1,dp=2,ep=8,model=70b,dp_bytes=1e9")).ring_pair(Dim::kEp),
      0);
  EXPECT_EQ(
      BuildTrafficModel(Parse("tp=4,pp=1,dp=2,ep=8,model=70b,ep_bytes=1e9")).ring_pair(Dim::kEp),
      0);
}

// A token passes through the shared parameters and top_k of the routed experts: the
// active counts the model cards give follow from the presets' shapes.
TEST(ModelPresets, ActiveParametersMatchThePublishedOnes) {
  EXPECT_NEAR(ActiveParams(*FindModelPreset("deepseek-v3")), 37e9, 0.6e9);     // "37B activated"
  EXPECT_NEAR(ActiveParams(*FindModelPreset("qwen3-235b")), 22e9, 0.3e9);      // "A22B"
  EXPECT_NEAR(ActiveParams(*FindModelPreset("mixtral-8x7b")), 12.9e9, 0.1e9);  // "12.9B"
  EXPECT_EQ(ActiveParams(*FindModelPreset("70b")), 70e9);                      // dense: all of them
  // EP must divide the experts.
  EXPECT_FALSE(ParseJobSpec("tp=1,pp=1,dp=1,ep=3,gpus_per_node=3,model=deepseek-v3").ok());
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
