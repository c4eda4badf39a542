#include "topology/generate/reference_fabrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/fabrics.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;

struct Expected {
  std::string preset;
  size_t hosts, gpus, leaves, spines, cores, blocks, pods;
  double leaf_oversubscription;
};

class PresetCounts : public ::testing::TestWithParam<Expected> {};

TEST_P(PresetCounts, MatchTheDesign) {
  const Expected& e = GetParam();
  absl::StatusOr<FabricPtr> f = GeneratePreset(e.preset);
  ASSERT_TRUE(f.ok()) << f.status();
  const Fabric& fabric = **f;
  EXPECT_EQ(fabric.hosts().size(), e.hosts);
  EXPECT_EQ(fabric.gpus().size(), e.gpus);
  EXPECT_EQ(fabric.nics().size(), e.gpus);  // one NIC per GPU in every preset
  EXPECT_EQ(fabric.tier_stats()[0].switches, static_cast<int32_t>(e.leaves));
  EXPECT_EQ(fabric.tier_stats()[1].switches, static_cast<int32_t>(e.spines));
  EXPECT_EQ(fabric.max_tier(), e.cores > 0 ? 3 : 2);
  if (e.cores > 0) {
    EXPECT_EQ(fabric.tier_stats()[2].switches, static_cast<int32_t>(e.cores));
  }
  EXPECT_EQ(fabric.blocks().size(), e.blocks);
  EXPECT_EQ(fabric.pods().size(), e.pods);
  EXPECT_EQ(fabric.rails().size(), 8u);
  EXPECT_TRUE(fabric.rail_optimized());
  EXPECT_DOUBLE_EQ(*fabric.tier_stats()[0].oversubscription(), e.leaf_oversubscription);
  EXPECT_TRUE(fabric.warnings().empty()) << fabric.warnings()[0];
}

INSTANTIATE_TEST_SUITE_P(
    Presets, PresetCounts,
    ::testing::Values(
        // 64 nodes x 8 GPUs; 8 rail leaves; 2 spines; 1:1.
        Expected{"rail-512", 64, 512, 8, 2, 0, 1, 1, 1.0},
        // 4 SUs x 32 nodes x 8 GPUs; 8 leaves per SU = 32; 16 spines; non-blocking.
        Expected{"superpod-4su", 128, 1024, 32, 16, 0, 4, 1, 1.0},
        // 32 groups x 112 nodes = 3,584 hosts, x 8 = 28,672 GPUs; 32 x 8 = 256 leaves;
        // 112 x 400G down : 8 x 800G up = 7:1.
        Expected{"rail-28k", 3584, 28672, 256, 32, 0, 32, 1, 7.0},
        // 16 pods x 25 blocks x 32 nodes = 12,800 hosts, 102,400 GPUs; 400 x 8 leaves.
        Expected{"clos3-100k", 12800, 102400, 3200, 256, 100, 400, 16, 1.0}),
    [](const ::testing::TestParamInfo<Expected>& info) {
      std::string name = info.param.preset;
      for (char& c : name) c = (c == '-') ? '_' : c;
      return name;
    });

TEST(GenerateClos, RejectsBadParametersNamingThem) {
  ClosParams p;
  p.nodes_per_block = 0;
  EXPECT_THAT(GenerateClos(p).status().message(), HasSubstr("nodes_per_block must be > 0"));
  p = ClosParams();
  p.rail_planes = true;
  p.spines_per_pod = 6;
  EXPECT_THAT(GenerateClos(p).status().message(), HasSubstr("multiple of rails"));
  p = ClosParams();
  p.pods = 2;
  EXPECT_THAT(GenerateClos(p).status().message(), HasSubstr("pods must be 1"));
}

TEST(GenerateClos, CustomParameters_ProduceTheAskedShape) {
  ClosParams p = testing::TinyClos(/*blocks=*/3, /*nodes=*/5, /*gpus=*/4, /*rails=*/2);
  p.spines_per_pod = 4;
  p.leaf_oversubscription = 2.0;
  FabricPtr f = *GenerateClos(p);
  EXPECT_EQ(f->hosts().size(), 15u);
  EXPECT_EQ(f->gpus().size(), 60u);
  EXPECT_EQ(f->blocks().size(), 3u);
  // GPUs 0,1 share NIC 0 and GPUs 2,3 share NIC 1.
  const Host& h = f->hosts()[0];
  EXPECT_EQ(f->gpus()[h.gpus[1]].nic, h.nics[0]);
  EXPECT_EQ(f->gpus()[h.gpus[2]].nic, h.nics[1]);
  // 5 x 400G down; 2:1 -> 1000G up = 2.5 cables over 4 spines, rounded to 1 each:
  // the real ratio 2000/1600 is reported, not the asked one.
  EXPECT_DOUBLE_EQ(*f->tier_stats()[0].oversubscription(), 2000.0 / 1600.0);
}

TEST(PresetParams, UnknownPreset_ListsTheKnownOnes) {
  absl::Status s = PresetParams("rail-9").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("rail-512, superpod-4su, rail-28k, clos3-100k"));
}

}  // namespace
}  // namespace topoplace
