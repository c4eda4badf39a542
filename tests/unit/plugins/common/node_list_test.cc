#include "plugins/common/node_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>

#include "absl/strings/match.h"

namespace topoplace::plugins {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Parse(const std::string& text) {
  absl::StatusOr<std::vector<std::string>> names = ParseNodeList(text, "nodes.txt");
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : std::vector<std::string>{};
}

std::string Error(const std::string& text) {
  absl::StatusOr<std::vector<std::string>> names = ParseNodeList(text, "nodes.txt");
  EXPECT_FALSE(names.ok());
  return std::string(names.status().message());
}

TEST(NodeList, SinfoOutputIsOneNamePerLine) {
  EXPECT_THAT(Parse("gpu-001\ngpu-002\n\n# drained\ngpu-003 # spare\n"),
              ElementsAre("gpu-001", "gpu-002", "gpu-003"));
}

TEST(NodeList, SlurmHostlistsExpandKeepingZeroPadding) {
  EXPECT_THAT(Parse("gpu[008-010,012],login1"),
              ElementsAre("gpu008", "gpu009", "gpu010", "gpu012", "login1"));
  EXPECT_THAT(Parse("r[1-2]n[09-10]"), ElementsAre("r1n09", "r1n10", "r2n09", "r2n10"));
}

TEST(NodeList, KubectlNamesAndJsonAreAccepted) {
  EXPECT_THAT(Parse("node/gpu-a\nnode/gpu-b\n"), ElementsAre("gpu-a", "gpu-b"));
  EXPECT_THAT(Parse(R"({"items": [{"metadata": {"name": "gpu-a"}}, {"metadata": {"name": "x"}}]})"),
              ElementsAre("gpu-a", "x"));
}

TEST(NodeList, MalformedInputIsAnErrorNamingTheLine) {
  EXPECT_THAT(Error("a\ngpu[3-1]\n"), HasSubstr("nodes.txt:2: hostlist 'gpu[3-1]': '3-1' is not"));
  EXPECT_THAT(Error("gpu[1-2"), HasSubstr("nodes.txt:1: hostlist 'gpu[1-2': unbalanced"));
  EXPECT_THAT(Error("gpu]1["), HasSubstr("unbalanced"));
  EXPECT_THAT(Error("gpu[]"), HasSubstr("empty '[]'"));
  EXPECT_THAT(Error("gpu[1-99999999999]"), HasSubstr("more than 1000000 node names"));
  EXPECT_THAT(Error("# nothing\n"), HasSubstr("nodes.txt: no node name"));
  EXPECT_THAT(Error(R"({"items": [{"metadata": {}}]})"),
              HasSubstr("nodes.txt: field items[0].metadata.name"));
  EXPECT_THAT(Error(R"({"kind": "List"})"), HasSubstr("an \"items\" array"));
  EXPECT_THAT(Error("{not json"), HasSubstr("nodes.txt: not a JSON object"));
}

// Hardening finding 8: 15,000 bracket groups in one name overflowed the stack (one level
// of recursion each), and a 30 KB list of ranges asked for 30 GB of names. Both are now
// refused, counted before any name is made.
TEST(NodeList, HugeOrDeeplyBracketedListsAreRefusedWithoutExpanding) {
  std::string deep;
  for (int i = 0; i < 15000; ++i) deep += "x[0]";
  EXPECT_THAT(Error(deep), HasSubstr("names longer than 256 bytes"));
  std::string wide = "n";
  for (int i = 0; i < 5000; ++i) wide += "[0-9]";
  EXPECT_THAT(Error(wide), HasSubstr("more than 1000000 node names"));
  EXPECT_THAT(Error("a[0-999999][0-9]"), HasSubstr("more than 1000000 node names"));
  EXPECT_EQ(Parse("a[0-999][0-99]").size(), 100000u);  // big, but within the limits
}

// The largest index there is expands once: a loop up to it wrapped around to 0 and ran
// until memory ran out (node_list_fuzzer, CI of 2026-11-29).
TEST(NodeList, TheLargestIndexExpandsOnce) {
  EXPECT_THAT(Parse("gpu[018446744073709551615]"), ElementsAre("gpu018446744073709551615"));
  EXPECT_THAT(Parse("g[18446744073709551614-18446744073709551615]"),
              ElementsAre("g18446744073709551614", "g18446744073709551615"));
}

// Hardening round four, finding 4: zero padding was checked only after every number of
// the range had been formatted at its width, so 'n[' + 30,000 zeros + '0-999999]' (30 KB)
// took 24 GB and was killed, and 3,000 zeros took 4 GB before the error. Parsed in a child
// whose address space is capped at 1 GiB, the list is refused there instead of failing to
// allocate. (Without the cap under AddressSanitizer, which reserves terabytes of shadow.)
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCapAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCapAddressSpace = false;
#else
constexpr bool kCapAddressSpace = true;
#endif
#else
constexpr bool kCapAddressSpace = true;
#endif

void ParseWithinOneGiB(const std::string& text) {
  if (kCapAddressSpace) {
    const rlimit cap{size_t{1} << 30, size_t{1} << 30};
    setrlimit(RLIMIT_AS, &cap);
  }
  absl::StatusOr<std::vector<std::string>> names = ParseNodeList(text, "nodes.txt");
  const bool refused =
      !names.ok() && absl::StrContains(names.status().message(), "names longer than 256 bytes");
  std::exit(refused ? 0 : 1);
}

TEST(NodeListDeathTest, PaddingIsCheckedBeforeAnyNumberIsWritten) {
  for (const int zeros : {300, 3'000, 30'000}) {
    const std::string list = "n[" + std::string(zeros, '0') + "0-999999]";
    EXPECT_EXIT(ParseWithinOneGiB(list), ::testing::ExitedWithCode(0), "") << zeros << " zeros";
  }
  // The high end's padding too, and a padded single number.
  EXPECT_THAT(Error("n[0-" + std::string(300, '0') + "9]"), HasSubstr("names longer than 256"));
  EXPECT_THAT(Error("n[" + std::string(300, '0') + "]"), HasSubstr("names longer than 256"));
}

// All the names of a list together are bounded too, before any is made: a million names
// of 250 bytes would take 250 MB.
TEST(NodeList, AllNamesTogetherAreBoundedBeforeExpanding) {
  const std::string long_prefix(240, 'x');
  EXPECT_THAT(Error(long_prefix + "[000000-999999]"),
              HasSubstr("node names of more than 67108864 bytes in all"));
  EXPECT_EQ(Parse("gpu[000001-100000]-ib[0-1]").size(), 200000u);  // 3.2 MB: accepted
  EXPECT_THAT(Parse("g[08-10,1,001]"), ElementsAre("g08", "g09", "g10", "g1", "g001"));
  EXPECT_THAT(Parse("r[1-2]n[9-10]"), ElementsAre("r1n9", "r1n10", "r2n9", "r2n10"));
}

// Hardening finding 2: SLURM_JOB_NODELIST="b03-n030 dp=2 hosts=b03-n031" put 'dp=2' and
// 'hosts=...' into the job's start spec as host names. Names are host names or an error.
TEST(NodeList, NamesThatAreNotHostNamesAreRefused) {
  EXPECT_THAT(Error("b03-n030 dp=2 hosts=b03-n031"), HasSubstr("'dp=2'"));
  EXPECT_THAT(Error("gpu[1-2]=x"), HasSubstr("host name 'gpu1=x'"));
  EXPECT_THAT(Error(R"({"items": [{"metadata": {"name": "a,b"}}]})"),
              HasSubstr("field items[0].metadata.name"));
}

TEST(NodeList, MissingFileIsNotFound) {
  EXPECT_EQ(LoadNodeList("/nonexistent/nodes.txt").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace topoplace::plugins
