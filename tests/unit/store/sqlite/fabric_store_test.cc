// Specification of the fabric snapshot store on a real SQLite file.
#include "store/sqlite/fabric_store.h"

#include <fstream>

#include "gtest/gtest.h"
#include "tests/integration/service/support/temp_dir.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace::store {
namespace {

FabricPtr SmallFabric(int nodes_per_block) {
  absl::StatusOr<FabricPtr> fabric = GenerateClos(testing::TinyClos(1, nodes_per_block));
  EXPECT_TRUE(fabric.ok()) << fabric.status();
  return *fabric;
}

TEST(FabricStoreTest, FabricStore_EmptyStoreHasNoLatestSnapshot) {
  testing::TempDir dir;
  auto store = FabricStore::Open(dir.File("t.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Latest().status().code(), absl::StatusCode::kNotFound);
}

TEST(FabricStoreTest, FabricStore_SnapshotSurvivesReopenAsTheSameCanonicalFabric) {
  testing::TempDir dir;
  FabricPtr fabric = SmallFabric(4);
  {
    auto store = FabricStore::Open(dir.File("t.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    auto put = (*store)->Put(fabric);
    ASSERT_TRUE(put.ok()) << put.status();
    EXPECT_EQ(put->version, 1u);
  }
  auto store = FabricStore::Open(dir.File("t.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  auto latest = (*store)->Latest();
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->version, 1u);
  EXPECT_EQ(FabricToJson(*latest->fabric), FabricToJson(*fabric));
}

TEST(FabricStoreTest, FabricStore_IdenticalPutKeepsVersionAndChangedPutBumpsIt) {
  testing::TempDir dir;
  auto store = FabricStore::Open(dir.File("t.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_EQ((*store)->Put(SmallFabric(4))->version, 1u);
  EXPECT_EQ((*store)->Put(SmallFabric(4))->version, 1u);
  EXPECT_EQ((*store)->Put(SmallFabric(6))->version, 2u);
  auto old = (*store)->Get(1);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->fabric->hosts().size(), 4u);
  EXPECT_EQ((*store)->Latest()->fabric->hosts().size(), 6u);
  EXPECT_EQ((*store)->Get(3).status().code(), absl::StatusCode::kNotFound);
}

TEST(FabricStoreTest, FabricStore_FileThatIsNotADatabaseIsUnavailable) {
  testing::TempDir dir;
  std::ofstream(dir.File("junk.db")) << std::string(4096, 'x');
  auto store = FabricStore::Open(dir.File("junk.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("junk.db"), std::string::npos) << store.status();
}

}  // namespace
}  // namespace topoplace::store
