// Seeded mutations of a valid fabric file: every result is a whole Fabric or an
// InvalidArgument naming the file, never a crash (run under `make asan` too). The
// libFuzzer target in tests/fuzz explores further; this keeps a fixed corpus in CI.
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/match.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace {
namespace {

std::string Mutate(std::string text, std::mt19937& rng) {
  static constexpr char kAlphabet[] = "{}[]\",:0123456789-.eE \nabtrufnl/\\";
  std::uniform_int_distribution<int> kind(0, 3);
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = rng() % text.size();
    switch (kind(rng)) {
      case 0:  // replace a byte
        text[at] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
        break;
      case 1:  // delete a run
        text.erase(at, 1 + rng() % 16);
        break;
      case 2:  // duplicate a run
        text.insert(at, text.substr(at, 1 + rng() % 64));
        break;
      default:  // truncate
        text.resize(at);
        break;
    }
  }
  return text;
}

TEST(FabricFileMutations, NeverCrashAndAlwaysExplain) {
  const std::string valid = FabricToJson(**GenerateClos(testing::TinyClos(2, 2)));
  std::mt19937 rng(20261121);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = Mutate(valid, rng);
    absl::StatusOr<FabricPtr> f = ParseFabricJson(text, "mutant.json");
    if (f.ok()) {
      ++accepted;
      // Whatever was accepted must serialise and load again to the same thing.
      absl::StatusOr<FabricPtr> again = ParseFabricJson(FabricToJson(**f), "again.json");
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
      EXPECT_EQ(FabricToJson(**again), FabricToJson(**f));
      continue;
    }
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << f.status();
    EXPECT_TRUE(absl::StartsWith(f.status().message(), "mutant.json")) << f.status();
  }
  // Most mutations break the file; some (whitespace, a duplicated record's fields) don't.
  EXPECT_LT(accepted, 3000);
}

}  // namespace
}  // namespace topoplace
