#include "topology/discovery/fabric_import.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "topology/io/fabric_file.h"

namespace topoplace::discovery {
namespace {

using ::testing::HasSubstr;

TEST(FabricImport, SpecAloneRebuildsTheSameFabric) {
  absl::StatusOr<FabricPtr> spec = LoadFabricSpec("preset:rail-512");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<FabricPtr> imported = ImportFabric({.spec = "preset:rail-512"}, "rail-512");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ((*imported)->hosts().size(), (*spec)->hosts().size());
  EXPECT_EQ((*imported)->gpus().size(), (*spec)->gpus().size());
  EXPECT_EQ((*imported)->blocks().size(), (*spec)->blocks().size());
  EXPECT_EQ((*imported)->rails().size(), (*spec)->rails().size());
  EXPECT_EQ((*imported)->max_tier(), (*spec)->max_tier());
}

TEST(FabricImport, SpecAndDiscoveredSourcesMergeIntoOneFabric) {
  const std::string ib =
      std::string(TP_SHARED_FIXTURES) + "/ibnetdiscover/ibnetdiscover-synthetic-fixture.txt";
  const std::string lldp = std::string(TP_SHARED_FIXTURES) + "/lldp";
  absl::StatusOr<FabricPtr> fabric = ImportFabric({.ibnetdiscover = {ib}, .lldp = {lldp}}, "both");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  // tp-h1 and tp-h2 are in both sources: one host each, with an HCA and an Ethernet NIC.
  EXPECT_EQ((*fabric)->hosts().size(), 3u);
  EXPECT_TRUE((*fabric)->FindNic("tp-h1/mlx5_0").has_value());
  EXPECT_TRUE((*fabric)->FindNic("tp-h1/eth0").has_value());
}

TEST(FabricImport, NothingToImportIsAnError) {
  absl::StatusOr<FabricPtr> fabric = ImportFabric({}, "none");
  ASSERT_FALSE(fabric.ok());
  EXPECT_THAT(fabric.status().message(), HasSubstr("nothing to import"));
}

TEST(FabricImport, FirstBadSourceFailsTheWholeImport) {
  absl::StatusOr<FabricPtr> fabric =
      ImportFabric({.ibnetdiscover = {"/nonexistent.txt"}, .spec = "preset:rail-512"}, "x");
  ASSERT_FALSE(fabric.ok());
  EXPECT_EQ(fabric.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace::discovery
