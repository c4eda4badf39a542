#include "topology/model/fabric_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topoplace {
namespace {

using ::testing::HasSubstr;

TEST(FabricBuilder, AddHost_RejectsDuplicateAndEmptyNames) {
  FabricBuilder b("t");
  ASSERT_TRUE(b.AddHost("n1").ok());
  EXPECT_THAT(b.AddHost("n1").status().message(), HasSubstr("duplicate host 'n1'"));
  EXPECT_THAT(b.AddHost("").status().message(), HasSubstr("must not be empty"));
  EXPECT_THAT(b.AddHost("a/b").status().message(), HasSubstr("must not contain '/'"));
  EXPECT_EQ(b.num_hosts(), 1);
}

TEST(FabricBuilder, AddNic_RejectsNonPositiveSpeedAndUnknownHost) {
  FabricBuilder b("t");
  HostId h = *b.AddHost("n1");
  EXPECT_THAT(b.AddNic(h, "mlx5_0", -400).status().message(),
              HasSubstr("speed_gbps must be a number above 0 and at most 100000, got -400"));
  EXPECT_THAT(b.AddNic(h, "mlx5_0", 0).status().message(), HasSubstr("speed_gbps"));
  EXPECT_FALSE(b.AddNic(7, "mlx5_0", 400).ok());
  ASSERT_TRUE(b.AddNic(h, "mlx5_0", 400).ok());
  EXPECT_THAT(b.AddNic(h, "mlx5_0", 400).status().message(),
              HasSubstr("duplicate NIC 'n1/mlx5_0'"));
  EXPECT_EQ(*b.FindNic("n1/mlx5_0"), 0);
}

TEST(FabricBuilder, AddGpu_RejectsDuplicateIndexAndForeignNic) {
  FabricBuilder b("t");
  HostId h1 = *b.AddHost("n1");
  HostId h2 = *b.AddHost("n2");
  NicId other = *b.AddNic(h2, "mlx5_0", 400);
  ASSERT_TRUE(b.AddGpu(h1, 0).ok());
  EXPECT_THAT(b.AddGpu(h1, 0).status().message(), HasSubstr("duplicate GPU index 0"));
  EXPECT_THAT(b.AddGpu(h1, 1, other).status().message(), HasSubstr("NIC of another host"));
  EXPECT_THAT(b.AddGpu(h1, -1).status().message(), HasSubstr("index must be >= 0"));
}

TEST(FabricBuilder, AddLink_RejectsSelfLoopsNicPairsAndBadAttributes) {
  FabricBuilder b("t");
  HostId h = *b.AddHost("n1");
  NicId n0 = *b.AddNic(h, "mlx5_0", 400);
  NicId n1 = *b.AddNic(h, "mlx5_1", 400);
  SwitchId s = *b.AddSwitch("leaf");
  EXPECT_THAT(b.AddLink(SwitchEnd(s), SwitchEnd(s), {.speed_gbps = 400}).status().message(),
              HasSubstr("to itself"));
  EXPECT_THAT(b.AddLink(NicEnd(n0), NicEnd(n1), {.speed_gbps = 400}).status().message(),
              HasSubstr("two NICs"));
  EXPECT_THAT(b.AddLink(NicEnd(n0), SwitchEnd(s), {.speed_gbps = -1}).status().message(),
              HasSubstr("speed_gbps"));
  EXPECT_THAT(
      b.AddLink(NicEnd(n0), SwitchEnd(s), {.speed_gbps = 400, .lanes = 0}).status().message(),
      HasSubstr("lanes must be >= 1"));
  EXPECT_FALSE(b.AddLink(NicEnd(n0), SwitchEnd(9), {.speed_gbps = 400}).ok());
  EXPECT_TRUE(b.AddLink(NicEnd(n0), SwitchEnd(s), {.speed_gbps = 400}).ok());
}

TEST(FabricBuilder, Build_SortsGpusByIndex) {
  FabricBuilder b("t", 7);
  HostId h = *b.AddHost("n1");
  NicId nic = *b.AddNic(h, "mlx5_0", 400);
  ASSERT_TRUE(b.AddGpu(h, 1, nic).ok());
  ASSERT_TRUE(b.AddGpu(h, 0, nic).ok());
  SwitchId s = *b.AddSwitch("leaf");
  ASSERT_TRUE(b.AddLink(NicEnd(nic), SwitchEnd(s), {.speed_gbps = 400}).ok());
  absl::StatusOr<FabricPtr> f = std::move(b).Build();
  ASSERT_TRUE(f.ok()) << f.status();
  const Fabric& fabric = **f;
  EXPECT_EQ(fabric.version(), 7u);
  ASSERT_EQ(fabric.hosts()[0].gpus.size(), 2u);
  EXPECT_EQ(fabric.gpus()[fabric.hosts()[0].gpus[0]].index, 0);
  EXPECT_EQ(fabric.GpuName(fabric.hosts()[0].gpus[1]), "n1/gpu1");
  // Looked up by host name and local index, whatever order they were added in.
  EXPECT_EQ(fabric.FindGpu("n1", 1), fabric.hosts()[0].gpus[1]);
  EXPECT_EQ(fabric.FindGpu("n1", 0), fabric.hosts()[0].gpus[0]);
  EXPECT_FALSE(fabric.FindGpu("n1", 2).has_value());
  EXPECT_FALSE(fabric.FindGpu("n2", 0).has_value());
}

}  // namespace
}  // namespace topoplace
