// Each GPU model's constants: how a product name finds its entry, which model a fabric
// runs, and that the step-time model takes the fabric's unless told otherwise.
#include "scheduler/steptime/gpu_models.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/steptime/comm_model.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/model/fabric_builder.h"

namespace topoplace::sched {
namespace {

TEST(FindGpuModel, FindsTheEntryAProductNameNames) {
  for (const char* product : {"H100", "h100", "NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5"}) {
    const GpuModel* m = FindGpuModel(product);
    ASSERT_NE(m, nullptr) << product;
    EXPECT_EQ(m->name, "H100") << product;
  }
  ASSERT_NE(FindGpuModel("NVIDIA GB200"), nullptr);
  EXPECT_EQ(FindGpuModel("NVIDIA GB200")->name, "GB200");
  ASSERT_NE(FindGpuModel("NVIDIA GH200 480GB"), nullptr);
  EXPECT_EQ(FindGpuModel("NVIDIA GH200 480GB")->name, "GH200");
  EXPECT_EQ(FindGpuModel("NVIDIA A100-SXM4-80GB"), nullptr);
  EXPECT_EQ(FindGpuModel(""), nullptr);
}

TEST(GpuModels, EveryEntryHasItsConstantsAndSources) {
  ASSERT_FALSE(GpuModels().empty());
  EXPECT_EQ(&DefaultGpuModel(), &GpuModels()[0]);
  for (const GpuModel& m : GpuModels()) {
    EXPECT_GT(m.nvlink_gbps, 0) << m.name;
    EXPECT_GT(m.bf16_peak_flops, 0) << m.name;
    EXPECT_GT(m.achieved_flops, 0) << m.name;
    EXPECT_LT(m.achieved_flops, m.bf16_peak_flops) << m.name << ": above its peak";
    EXPECT_GT(m.nvlink_efficiency, 0) << m.name;
    EXPECT_LE(m.nvlink_efficiency, 1) << m.name;
    EXPECT_FALSE(m.nvlink_source.empty()) << m.name;
    EXPECT_FALSE(m.flops_source.empty()) << m.name;
  }
  EXPECT_GT(kNicEfficiency, 0);
  EXPECT_LE(kNicEfficiency, 1);
}

TEST(GpuModels, Gb200HasTwiceHoppersNvlinkAndAboutTwoAndAHalfTimesItsFlops) {
  const GpuModel& h100 = *FindGpuModel("H100");
  const GpuModel& gb200 = *FindGpuModel("GB200");
  EXPECT_DOUBLE_EQ(gb200.nvlink_gbps, 2 * h100.nvlink_gbps);
  EXPECT_NEAR(gb200.achieved_flops / h100.achieved_flops, 2.5e15 / 989e12, 1e-9);
}

TEST(FabricGpuModel, PresetsNameTheirGpus) {
  for (const auto& [preset, model] : {std::pair{"rail-28k", "H100"},
                                      {"superpod-4su", "H100"},
                                      {"gb200-nvl72", "GB200"},
                                      {"gh200-nvl256", "GH200"}}) {
    absl::StatusOr<FabricPtr> f = GeneratePreset(preset);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(FabricGpuModel(**f).name, model) << preset;
  }
}

// Three hosts: `first`, `second` and `third` as their GPU models ("" names none).
FabricPtr ThreeHosts(const char* first, const char* second, const char* third) {
  FabricBuilder b("three");
  for (const char* model : {first, second, third}) {
    const absl::StatusOr<HostId> h = b.AddHost(absl::StrCat("h", b.num_hosts()));
    EXPECT_TRUE(h.ok());
    if (*model != '\0') {
      EXPECT_TRUE(b.SetGpuModel(*h, model).ok());
    }
  }
  absl::StatusOr<FabricPtr> f = std::move(b).Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

TEST(FabricGpuModel, TakesTheModelMostHostsNameAndH100WhereNoneIsKnown) {
  EXPECT_EQ(FabricGpuModel(*ThreeHosts("NVIDIA GB200", "GB200", "NVIDIA H100 80GB HBM3")).name,
            "GB200");
  EXPECT_EQ(FabricGpuModel(*ThreeHosts("", "", "NVIDIA GH200 480GB")).name, "GH200");
  EXPECT_EQ(FabricGpuModel(*ThreeHosts("", "", "")).name, "H100");
  EXPECT_EQ(FabricGpuModel(*ThreeHosts("A100", "A100", "")).name, "H100");
}

TEST(CommModelOptions, TheFabricsModelUnlessOneIsNamedAndAnyValueOverrides) {
  absl::StatusOr<FabricPtr> gb200 = GeneratePreset("gb200-nvl72");
  ASSERT_TRUE(gb200.ok()) << gb200.status();
  const CommModelOptions fabrics = CommModel::ForFabric(**gb200, {}).options();
  EXPECT_EQ(fabrics.gpu_model, "GB200");
  EXPECT_DOUBLE_EQ(fabrics.nvlink_gbps, FindGpuModel("GB200")->nvlink_gbps);
  EXPECT_DOUBLE_EQ(fabrics.gpu_flops, FindGpuModel("GB200")->achieved_flops);
  EXPECT_DOUBLE_EQ(fabrics.nic_efficiency, kNicEfficiency);
  EXPECT_DOUBLE_EQ(fabrics.comm_scale, 1);

  CommModelOptions h100;
  h100.gpu_model = "h100";
  const CommModelOptions named = CommModel::ForFabric(**gb200, h100).options();
  EXPECT_EQ(named.gpu_model, "H100");
  EXPECT_DOUBLE_EQ(named.nvlink_gbps, FindGpuModel("H100")->nvlink_gbps);

  CommModelOptions given;
  given.gpu_flops = 1e15;
  given.nvlink_gbps = 800;
  given.nvlink_efficiency = 1;
  given.nic_efficiency = 1;
  given.comm_scale = 2;
  const CommModel set = CommModel::ForFabric(**gb200, given);
  EXPECT_DOUBLE_EQ(set.options().gpu_flops, 1e15);
  EXPECT_DOUBLE_EQ(set.tier_bytes_per_s()[static_cast<int>(Tier::kNvlink)], 800e9 / 8 / 2);
  EXPECT_DOUBLE_EQ(set.network_time_factor(), 2);
}

}  // namespace
}  // namespace topoplace::sched
