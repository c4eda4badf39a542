#include "topology/io/fabric_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_replace.h"
#include "topology/generate/reference_fabrics.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;

// A canonical file: exactly what FabricToJson writes.
constexpr char kTiny[] = R"({
  "format": "topoplace.fabric/v1",
  "name": "tiny",
  "version": 3,
  "hosts": [
    {"name": "n1", "nvlink_domain": "rack-a", "gpu_model": "NVIDIA H100 80GB HBM3"},
    {"name": "n2"}
  ],
  "nics": [
    {"host": "n1", "name": "mlx5_0", "speed_gbps": 400},
    {"host": "n2", "name": "mlx5_0", "speed_gbps": 400}
  ],
  "gpus": [
    {"host": "n1", "index": 0, "nic": "mlx5_0", "numa": 0},
    {"host": "n2", "index": 0}
  ],
  "switches": [
    {"name": "leaf1", "tier": 1},
    {"name": "spine1", "tier": 2}
  ],
  "links": [
    {"a": "n1/mlx5_0", "b": "leaf1", "speed_gbps": 400, "lanes": 4, "count": 1, "state": "up"},
    {"a": "n2/mlx5_0", "b": "leaf1", "speed_gbps": 400, "lanes": 4, "count": 1, "state": "degraded"},
    {"a": "leaf1", "b": "spine1", "speed_gbps": 800.5, "lanes": 8, "count": 2, "state": "down"}
  ]
}
)";

// The error message for `text`, as a std::string so that gmock prints it readably.
std::string ParseError(const std::string& text) {
  absl::Status status = ParseFabricJson(text, "bad.json").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

// Replaces `from` (which must occur) in the tiny fabric.
std::string Tiny(absl::string_view from, absl::string_view to) {
  std::string text = kTiny;
  EXPECT_NE(text.find(std::string(from)), std::string::npos) << from;
  return absl::StrReplaceAll(text, {{from, to}});
}

TEST(FabricFile, CanonicalFile_RoundTripsByteForByte) {
  absl::StatusOr<FabricPtr> f = ParseFabricJson(kTiny, "tiny.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(FabricToJson(**f), kTiny);
  EXPECT_EQ((*f)->version(), 3u);
  EXPECT_EQ((*f)->hosts()[0].gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ((*f)->hosts()[1].gpu_model, "");
  EXPECT_EQ((*f)->links()[2].state, LinkState::kDown);
  EXPECT_EQ((*f)->links()[2].speed_gbps, 800.5);
}

TEST(FabricFile, AggregationNodes_RoundTripByteForByte) {
  const std::string text = Tiny("\"state\": \"down\"}\n  ]\n}",
                                "\"state\": \"down\"}\n  ],\n"
                                "  \"aggregation_nodes\": [\n"
                                "    {\"name\": \"an-1\", \"switch\": \"leaf1\"}\n"
                                "  ]\n}");
  absl::StatusOr<FabricPtr> f = ParseFabricJson(text, "tiny.json");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ((*f)->aggregation_nodes().size(), 1u);
  EXPECT_EQ((*f)->aggregation_nodes()[0].name, "an-1");
  EXPECT_EQ(FabricToJson(**f), text);
}

TEST(FabricFile, GeneratedPreset_SurvivesSaveAndLoad) {
  FabricPtr f = *GeneratePreset("superpod-4su");
  const std::string path = (std::filesystem::path(testing::TempDir()) / "superpod.json").string();
  ASSERT_TRUE(SaveFabricFile(*f, path).ok());
  absl::StatusOr<FabricPtr> loaded = LoadFabricFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(FabricToJson(**loaded), FabricToJson(*f));
  EXPECT_EQ((*loaded)->blocks().size(), 4u);
  std::remove(path.c_str());
}

TEST(FabricFile, NonCanonicalFile_LoadsAndInfersTiers) {
  absl::StatusOr<FabricPtr> f = ParseFabricJson(
      R"({"format":"topoplace.fabric/v1","hosts":[{"name":"h"}],
          "nics":[{"host":"h","name":"e0","speed_gbps":100}],
          "switches":[{"name":"s"}],"links":[{"a":"s","b":"h/e0","speed_gbps":100}]})",
      "mini.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->switches()[0].tier, 1);
  EXPECT_EQ((*f)->links()[0].lanes, 4);
}

TEST(FabricFile, BadJson_NamesLineAndColumn) {
  std::string s = ParseError("{\n  \"format\": \"topoplace.fabric/v1\",\n  \"hosts\": [,]\n}");
  EXPECT_THAT(s, HasSubstr("bad.json:3:"));
  EXPECT_THAT(s, HasSubstr("not valid JSON"));
}

TEST(FabricFile, UnknownField_IsRejectedWithLineAndExpectedFields) {
  std::string s = ParseError(Tiny(R"({"name": "n2"})", R"({"name": "n2", "gpu": 3})"));
  EXPECT_THAT(s, HasSubstr("bad.json:7: hosts[1].gpu: unknown field; expected one of: "
                           "name, nvlink_domain, gpu_model"));
  s = ParseError(Tiny(R"("version": 3,)", R"("version": 3, "extra": 1,)"));
  EXPECT_THAT(s, HasSubstr("unknown top-level field 'extra'"));
}

TEST(FabricFile, DanglingLink_NamesTheMissingEndpoint) {
  std::string s = ParseError(Tiny(R"("b": "spine1")", R"("b": "spine9")"));
  EXPECT_THAT(s, HasSubstr("bad.json:24: links[2].b: no NIC or switch named 'spine9'"));
}

TEST(FabricFile, DuplicateId_IsRejected) {
  std::string s = ParseError(Tiny(R"({"name": "spine1", "tier": 2})", R"({"name": "leaf1"})"));
  EXPECT_THAT(s, HasSubstr("bad.json:19: switches[1]: duplicate switch 'leaf1'"));
}

TEST(FabricFile, GpuWithoutHost_IsRejected) {
  std::string s = ParseError(Tiny(R"({"host": "n2", "index": 0})", R"({"index": 0})"));
  EXPECT_THAT(s, HasSubstr("gpus[1].host: missing required field"));
  s = ParseError(Tiny(R"({"host": "n2", "index": 0})", R"({"host": "n9", "index": 0})"));
  EXPECT_THAT(s, HasSubstr("bad.json:15: gpus[1].host: no host named 'n9'"));
}

TEST(FabricFile, NegativeSpeed_IsRejected) {
  std::string s = ParseError(Tiny(R"("speed_gbps": 800.5)", R"("speed_gbps": -800)"));
  EXPECT_THAT(s, HasSubstr("links[2]: speed_gbps must be a number above 0 and at most 100000, "
                           "got -800"));
}

// Hardening round four, finding 8: a fabric file could carry a 10 MB host name, speed
// 1e308, tier 1e9 and a top-level key twice, silently. Each is refused, naming the record.
TEST(FabricFile, OutlandishValuesAndRepeatedKeysAreRefused) {
  const std::string huge(10 << 20, 'h');
  std::string s = ParseError(Tiny(R"({"name": "n2"})", "{\"name\": \"" + huge + "\"}"));
  EXPECT_THAT(s, HasSubstr("hosts[1]: host name 'hhhh"));
  EXPECT_THAT(s, HasSubstr("is 10485760 bytes; at most 256"));
  EXPECT_LT(s.size(), 300u) << "the error quotes a short excerpt";
  EXPECT_THAT(ParseError(Tiny(R"("speed_gbps": 800.5)", R"("speed_gbps": 1e308)")),
              HasSubstr("links[2]: speed_gbps must be a number above 0 and at most 100000"));
  EXPECT_THAT(ParseError(Tiny(R"({"name": "spine1", "tier": 2})",
                              R"({"name": "spine1", "tier": 1000000000})")),
              HasSubstr("switches[1]: tier must be 1 to 16 (or 0 to infer), got 1000000000"));
  EXPECT_THAT(ParseError(Tiny(R"("version": 3,)", R"("version": 3, "name": "again",)")),
              HasSubstr("bad.json: top-level key 'name' appears twice"));
}

// /dev/zero as a fabric file grew to about 2 GB and aborted; a FIFO hung.
TEST(FabricFile, ADeviceOrFifoIsRefusedBeforeReading) {
  absl::Status s = LoadFabricFile("/dev/zero").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'/dev/zero' is not a regular file"));
  const std::string fifo = ::testing::TempDir() + "/fabric-fifo";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  s = LoadFabricFile(fifo).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("is not a regular file"));
  unlink(fifo.c_str());
}

TEST(FabricFile, WrongTypes_SayWhatWasExpected) {
  EXPECT_THAT(ParseError(Tiny(R"("index": 0, "nic")", R"("index": "0", "nic")")),
              HasSubstr("gpus[0].index: expected an integer"));
  EXPECT_THAT(ParseError(Tiny(R"("state": "down")", R"("state": "flaky")")),
              HasSubstr("unknown link state 'flaky'; expected up, degraded or down"));
  EXPECT_THAT(ParseError(Tiny(R"("hosts": [)", R"("hosts": 5, "x": [)")),
              HasSubstr("bad.json: hosts: expected an array of records"));
  EXPECT_THAT(ParseError(Tiny(R"("hosts": [)", R"("x": [)")),
              HasSubstr("unknown top-level array 'x'"));
  EXPECT_THAT(ParseError(Tiny(R"({"name": "n2"})", R"({"name": {"first": "n2"}})")),
              HasSubstr("hosts[1].name: expected a string"));
  EXPECT_THAT(ParseError(Tiny(R"({"name": "n2"})", R"({"name": "n2", "name": "n3"})")),
              HasSubstr("hosts[1].name: field given twice"));
  EXPECT_THAT(ParseError(Tiny(R"({"name": "n2"})", R"("n2")")),
              HasSubstr("bad.json:7: hosts[1]: expected an object"));
  EXPECT_THAT(ParseError("[1,2]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(ParseError(Tiny("topoplace.fabric/v1", "v0")),
              HasSubstr("format: expected \"topoplace.fabric/v1\""));
}

TEST(FabricFile, MissingFile_IsNotFound) {
  EXPECT_EQ(LoadFabricFile("/nonexistent/fabric.json").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(FabricFile, LoadFabricSpec_AcceptsPresets) {
  absl::StatusOr<FabricPtr> f = LoadFabricSpec("preset:rail-512");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->gpus().size(), 512u);
  EXPECT_EQ(LoadFabricSpec("preset:nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace
