#include "telemetry/health/job_path.h"

#include <gtest/gtest.h>

#include "telemetry/health/fabric_health_model.h"
#include "tests/testing/fabrics.h"

namespace topoplace::telemetry {
namespace {

std::vector<GpuId> GpusOf(const Fabric& f, const std::vector<std::string>& hosts) {
  std::vector<GpuId> out;
  for (const std::string& h : hosts) {
    for (GpuId g : f.hosts()[*f.FindHost(h)].gpus) out.push_back(g);
  }
  return out;
}

TEST(JobPathTest, OneBlockStaysBelowTheLeaves) {
  FabricPtr f = *GenerateClos(testing::TinyClos(2, 2));
  const std::vector<HostId>& block = f->blocks()[0].hosts;
  const std::vector<std::string> hosts = {f->hosts()[block[0]].name, f->hosts()[block[1]].name};
  JobPath path = PathOfGpus(*f, GpusOf(*f, hosts));
  // 2 hosts x 2 NIC cables; the 2 rail leaves of block 0. No uplink.
  EXPECT_EQ(path.links.size(), 4u);
  EXPECT_EQ(path.switches.size(), 2u);
  for (SwitchId s : path.switches) EXPECT_EQ(f->switches()[s].tier, 1);
  EXPECT_TRUE(path.TouchesLink(
      *FindLink(*f, f->EndpointName({Endpoint::Kind::kNic, f->hosts()[block[0]].nics[0]}))));
}

TEST(JobPathTest, TwoBlocksCrossTheSpine) {
  FabricPtr f = *GenerateClos(testing::TinyClos(2, 2));
  const std::vector<std::string> hosts = {f->hosts()[f->blocks()[0].hosts[0]].name,
                                          f->hosts()[f->blocks()[1].hosts[0]].name};
  JobPath path = PathOfGpus(*f, GpusOf(*f, hosts));
  int spines = 0;
  for (SwitchId s : path.switches) spines += f->switches()[s].tier == 2 ? 1 : 0;
  EXPECT_EQ(spines, 2);
  // 4 NIC cables + 4 leaves x 2 uplinks.
  EXPECT_EQ(path.links.size(), 12u);
}

TEST(JobPathTest, EmptyAndUnknownGpusGiveAnEmptyPath) {
  FabricPtr f = *GenerateClos(testing::TinyClos(1, 2));
  EXPECT_TRUE(PathOfGpus(*f, {}).links.empty());
  EXPECT_TRUE(PathOfGpus(*f, {-1, 100000}).links.empty());
}

}  // namespace
}  // namespace topoplace::telemetry
