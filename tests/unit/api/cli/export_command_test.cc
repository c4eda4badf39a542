// `topoplace export` on a production-like fabric, run as an operator runs it: exports hold
// only real compute nodes (optionally only those of a node list), and what is left out is
// said on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testing/run_command.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::topoplace::testing::RunCommand;
using ::topoplace::testing::ShellQuote;

std::string Cli(const std::string& args) { return std::string(TOPOPLACE_CLI) + " " + args; }

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ExportCommandTest : public ::testing::Test {
 protected:
  // Imports the messy fixture once, with and without its agent reports. A failure here
  // fails every test (SetUp) rather than skipping it.
  static void SetUpTestSuite() {
    // One directory per process: ctest runs each test of the suite as its own process.
    dir_ = new std::filesystem::path(std::filesystem::path(::testing::TempDir()) /
                                     ("export-messy-" + std::to_string(getpid())));
    std::filesystem::remove_all(*dir_);
    setup_error_ = new std::string;
    auto w = RunCommand(std::string(TOPOPLACE_MESSY_WRITER) + " " + ShellQuote(dir_->string()));
    if (w.exit_code != 0) return void(*setup_error_ = "writer: " + w.err);
    const std::string dump = ShellQuote((*dir_ / "ibnetdiscover.txt").string());
    auto plain = RunCommand(
        Cli("fabric import --ibnetdiscover " + dump + " --out " + ShellQuote(Fabric(false))));
    if (plain.exit_code != 0) return void(*setup_error_ = "import: " + plain.err);
    std::string reports;
    for (const auto& entry : std::filesystem::directory_iterator(*dir_ / "reports")) {
      reports += " --agent-report " + ShellQuote(entry.path().string());
    }
    auto with = RunCommand(Cli("fabric import --ibnetdiscover " + dump + reports + " --out " +
                               ShellQuote(Fabric(true))));
    if (with.exit_code != 0) *setup_error_ = "import with reports: " + with.err;
  }
  void SetUp() override { ASSERT_TRUE(setup_error_->empty()) << *setup_error_; }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete setup_error_;
  }
  static std::string Fabric(bool with_reports) {
    return (*dir_ / (with_reports ? "with-reports.json" : "dump-only.json")).string();
  }
  static std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (*dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  static std::filesystem::path* dir_;
  static std::string* setup_error_;
};

std::filesystem::path* ExportCommandTest::dir_ = nullptr;
std::string* ExportCommandTest::setup_error_ = nullptr;

TEST_F(ExportCommandTest, EveryFormatNamesOnlyRealNodesWithAndWithoutReports) {
  for (bool with_reports : {false, true}) {
    SCOPED_TRACE(with_reports ? "with reports" : "dump only");
    for (const char* format :
         {"slurm-tree", "slurm-block", "slurm-yaml", "k8s-labels", "volcano-hypernodes"}) {
      auto r = RunCommand(
          Cli(std::string("export ") + format + " --fabric " + ShellQuote(Fabric(with_reports))));
      ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
      for (const char* pseudo : {"ca-", "H-c0", "ufm", "an-", "MT4129"}) {
        EXPECT_THAT(r.out, Not(HasSubstr(pseudo))) << format;
      }
      EXPECT_THAT(r.err, HasSubstr("unattributed HCAs (in no host; see `fabric show`) are not "
                                   "exported"))
          << format;
    }
    auto block = RunCommand(Cli("export slurm-block --fabric " + ShellQuote(Fabric(with_reports))));
    EXPECT_THAT(block.out, HasSubstr("\nBlockSizes=16,32,64,128\n"));
    EXPECT_EQ(Count(block.out, "BlockName="), 8);
    auto labels = RunCommand(Cli("export k8s-labels --fabric " + ShellQuote(Fabric(with_reports))));
    EXPECT_EQ(Count(labels.out, "kind: Node\n"), 128);
  }
}

TEST_F(ExportCommandTest, NodeListKeepsOnlyListedNodesAndSaysWhatIsLeftOut) {
  const std::string nodes =
      Write("nodes.txt", "# sinfo -N -h -o %N, trimmed\nb000-n[000-015]\nnode/b001-n000 ghost-1\n");
  auto r = RunCommand(Cli("export slurm-block --fabric " + ShellQuote(Fabric(false)) + " --nodes " +
                          ShellQuote(nodes)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BlockName=block-00 Nodes=b000-n[000-015]\n"
                               "BlockName=block-01  # placeholder\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("Nodes=b002-")));
  // b001-n000 alone is a block far under the others: a placeholder in topology/block, and
  // said so.
  EXPECT_THAT(r.err, HasSubstr("blocks under the base block of 16 nodes are placeholders"));
  EXPECT_THAT(r.err, HasSubstr("block-01 (1 nodes: b001-n000)"));
  EXPECT_THAT(r.err, HasSubstr("111 fabric hosts not in " + nodes + " are left out"));
  EXPECT_THAT(r.err, HasSubstr("1 names in " + nodes + " are no host of the fabric: ghost-1"));

  auto labels = RunCommand(Cli("export k8s-labels --fabric " + ShellQuote(Fabric(false)) +
                               " --nodes " + ShellQuote(nodes)));
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  EXPECT_EQ(Count(labels.out, "kind: Node\n"), 17);
  EXPECT_THAT(labels.out, HasSubstr("topoplace.io/block: block-01\n"));  // names stay
}

TEST_F(ExportCommandTest, BlockBaseSetsBlockSizesFirstEntryAndABadOneIsRefused) {
  auto r =
      RunCommand(Cli("export slurm-block --block-base 12 --fabric " + ShellQuote(Fabric(false))));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BlockSizes=12,"));
  auto bad =
      RunCommand(Cli("export slurm-yaml --block-base 17 --fabric " + ShellQuote(Fabric(false))));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("block base: 17 nodes is more than any block holds"));
}

// Hardening round four, finding 8: a node list that names no host of the fabric exited 1
// ("internal error"); it is bad input, exit 2 naming the file.
TEST_F(ExportCommandTest, ANodeListNamingNoHostIsBadInput) {
  const std::string nodes = Write("strangers.txt", "ghost-[1-3]\n");
  auto r = RunCommand(Cli("export slurm-block --fabric " + ShellQuote(Fabric(false)) + " --nodes " +
                          ShellQuote(nodes)));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr(nodes + ": none of its 3 names is a host of fabric"));
  EXPECT_THAT(r.err, HasSubstr("ghost-[1-3]"));
}

TEST_F(ExportCommandTest, KubectlJsonNodeListIsAccepted) {
  const std::string nodes =
      Write("nodes.json",
            R"({"apiVersion": "v1", "kind": "List", "items": [{"metadata": {"name": "b003-n001"}},
          {"metadata": {"name": "b003-n002"}}]})");
  auto r = RunCommand(Cli("export volcano-hypernodes --fabric " + ShellQuote(Fabric(false)) +
                          " --nodes " + ShellQuote(nodes)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.out, "kind: HyperNode\n"), 2);  // block-03 and its pod
  EXPECT_THAT(r.out, HasSubstr("name: block-03\n"));
}

TEST_F(ExportCommandTest, MalformedNodeListIsAnErrorNamingTheLineAndWritesNothing) {
  const std::string nodes = Write("bad-nodes.txt", "b000-n000\nb001-n[005-001]\n");
  const std::string out = (*dir_ / "never.conf").string();
  auto r = RunCommand(Cli("export slurm-tree --fabric " + ShellQuote(Fabric(false)) + " --nodes " +
                          ShellQuote(nodes) + " --out " + ShellQuote(out)));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(nodes + ":2: hostlist 'b001-n[005-001]'"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace topoplace
