// `topoplace place` end to end through the CLI registry: exit codes and output shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "api/cli/cli_context.h"
#include "api/cli/commands.h"
#include "nlohmann/json.hpp"
#include "scheduler/ledger/clock.h"
#include "store/sqlite/sqlite_ledger.h"
#include "tests/testing/fabrics.h"
#include "topology/generate/reference_fabrics.h"
#include "topology/io/fabric_file.h"

namespace topoplace::cli {
namespace {

using ::testing::HasSubstr;

struct Result {
  int exit_code;
  std::string out, err;
};

Result RunCli(std::vector<std::string> args) {
  std::ostringstream out, err;
  CliContext ctx{.out = out, .err = err, .exit_code = kExitOk, .server = ""};
  CLI::App app{"topoplace"};
  app.require_subcommand(1);
  RegisterPlaceCommand(app, ctx);
  args.insert(args.begin(), "topoplace");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::ParseError& e) {
    return {kExitBadInput, out.str(), e.what()};
  }
  return {ctx.exit_code, out.str(), err.str()};
}

TEST(PlaceCommand, PrintsATableWithBytesPerTierAndExplain) {
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=4,dp=8"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("spine bytes        0 B"));
  EXPECT_THAT(r.out, HasSubstr("spine-bytes"));
  EXPECT_THAT(r.out, HasSubstr("rail-alignment"));
  EXPECT_THAT(r.out, HasSubstr("links crossed      256"));
  EXPECT_THAT(r.out, HasSubstr("predicted step     "));
}

TEST(PlaceCommand, JsonIsStableAndComplete) {
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=8,dp=8",
                     "--policy", "slurm-tree", "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "topoplace.plan/v1");
  EXPECT_EQ(j["policy"], "slurm-tree");
  EXPECT_EQ(j["hosts"].size(), 64u);
  EXPECT_EQ(j["ranks"].size(), 512u);
  EXPECT_EQ(j["explain"].size(), 11u);  // one entry per registered scorer
  EXPECT_TRUE(j["bytes_per_tier"].contains("spine"));
  EXPECT_TRUE(j.contains("spine_bytes_lower_bound"));
  EXPECT_GE(j["predicted_slowdown"].get<double>(), 1.0);
  EXPECT_GT(j["predicted_step_seconds"].get<double>(), 0.0);
  EXPECT_GT(j["reference_step_seconds"].get<double>(), 0.0);
  // Bytes per link: every NIC cable of the 64 hosts, plus leaf uplinks for the bytes that
  // cross blocks; the busiest is reported on its own.
  ASSERT_GT(j["links"].size(), 512u);
  const nlohmann::json& cable = j["links"][0];
  EXPECT_THAT(cable["lower"].get<std::string>(), HasSubstr("/mlx5_"));
  EXPECT_THAT(cable["upper"].get<std::string>(), HasSubstr("leaf"));
  double busiest = 0, uplink_up = 0;
  for (const nlohmann::json& l : j["links"]) {
    busiest = std::max({busiest, l["up_bytes"].get<double>(), l["down_bytes"].get<double>()});
    if (l["lower"].get<std::string>().find('/') == std::string::npos) {
      uplink_up += l["up_bytes"].get<double>();
    }
  }
  EXPECT_EQ(j["max_link_bytes"].get<double>(), busiest);
  EXPECT_NEAR(uplink_up, j["spine_bytes"].get<double>(), 1e-6 * uplink_up + 1);
  // Same input, same bytes.
  EXPECT_EQ(RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=8,dp=8",
                    "--policy", "slurm-tree", "--json"})
                .out,
            r.out);
}

TEST(PlaceCommand, BadSpecExitsTwoNamingTheField) {
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=3,pp=1,dp=1"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("'tp'"));
}

TEST(PlaceCommand, JobThatCannotFitExitsThreeSayingWhy) {
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=8,dp=32"});
  EXPECT_EQ(r.exit_code, kExitCannotPlace);
  EXPECT_THAT(r.err, HasSubstr("does not fit"));
  // 256 nodes of 8 GPUs on 128 hosts: how close it came, at each level.
  EXPECT_THAT(r.err, HasSubstr("room for 256 nodes of 8 GPUs: largest free block: 256 GPUs "
                               "(32 hosts, block 0), cluster: 1024 GPUs (128 hosts; 128 short)"));
}

// Issue 16's first finding: NCCL forwards cross-rail traffic over NVLink (PXN) by default,
// so a tp=4 job places on the rail-plane preset; --no-rail-local models hosts without it.
TEST(PlaceCommand, Tp4OnARailPlaneFabricPlacesWithPxnByDefault) {
  Result r = RunCli({"place", "--fabric", "preset:rail-28k", "--job", "tp=4,pp=4,dp=64"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rail-local (PXN)"));
  // The rail-aware rank map keeps every network pair of this shape on one rail, so it
  // needs no forwarding at all.
  Result without = RunCli(
      {"place", "--fabric", "preset:rail-28k", "--job", "tp=4,pp=4,dp=64", "--no-rail-local"});
  EXPECT_EQ(without.exit_code, kExitOk) << without.err;
  EXPECT_THAT(without.out, HasSubstr("cross-rail bytes   0 B"));
  // Three nodes per stage: the DP ring closes across rails, which only PXN can carry.
  Result odd = RunCli(
      {"place", "--fabric", "preset:rail-28k", "--job", "tp=4,pp=1,dp=6", "--no-rail-local"});
  EXPECT_EQ(odd.exit_code, kExitCannotPlace);
  EXPECT_THAT(odd.err, HasSubstr("--no-rail-local"));
}

TEST(PlaceCommand, BackgroundLoadAndCompare) {
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=4,dp=8",
                     "--load", "0.5", "--seed", "3", "--compare"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  for (const char* policy : {"topoplace", "first-fit", "slurm-tree", "volcano"}) {
    EXPECT_THAT(r.out, HasSubstr(policy));
  }
  EXPECT_EQ(RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=1,dp=1", "--load",
                    "1.5"})
                .exit_code,
            kExitBadInput);
}

TEST(PlaceCommand, RenderDrawsOneCellPerHostAndColoursTheJob) {
  const std::string path = ::testing::TempDir() + "/plan.svg";
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=8,dp=8",
                     "--load", "0.3", "--seed", "2", "--render", path});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  std::ifstream in(path);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t pos = svg.find(needle); pos != std::string::npos; pos = svg.find(needle, pos + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("<rect class="), 128u);        // 4 blocks x 32 hosts
  EXPECT_EQ(count("<rect class=\"job\""), 64u);  // 512 GPUs / 8
  EXPECT_GT(count("<rect class=\"busy\""), 0u);  // 30% background
}

// The blocks of a plan's hosts (by name) on `fabric`.
std::vector<int32_t> BlocksOf(const Fabric& fabric, const nlohmann::json& plan) {
  std::vector<int32_t> blocks;
  for (const auto& name : plan["hosts"]) {
    const int32_t b = fabric.hosts()[*fabric.FindHost(name.get<std::string>())].block;
    if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
  }
  return blocks;
}

// A 64-node job needs two of superpod-4su's four blocks. With the first block it chose
// marked hot (every leaf's uplinks 90% in use), it takes two others.
TEST(PlaceCommand, UplinkLoadFileSteersTheJobOffAHotBlock) {
  absl::StatusOr<FabricPtr> fabric = GeneratePreset("superpod-4su");
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  const std::vector<std::string> place = {
      "place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=8,dp=8,model=70b", "--json"};
  Result cool = RunCli(place);
  ASSERT_EQ(cool.exit_code, kExitOk) << cool.err;
  const std::vector<int32_t> before = BlocksOf(**fabric, nlohmann::json::parse(cool.out));
  ASSERT_EQ(before.size(), 2u);
  const std::string path = ::testing::TempDir() + "/uplink-load.txt";
  {
    std::ofstream file(path);
    file << "# block " << before[0] << " is busy\n";
    for (SwitchId leaf : (*fabric)->blocks()[before[0]].leaves) {
      file << (*fabric)->switches()[leaf].name << " 0.9\n";
    }
  }
  std::vector<std::string> loaded = place;
  loaded.insert(loaded.end(), {"--uplink-load", path});
  Result hot = RunCli(loaded);
  ASSERT_EQ(hot.exit_code, kExitOk) << hot.err;
  const nlohmann::json plan = nlohmann::json::parse(hot.out);
  const std::vector<int32_t> after = BlocksOf(**fabric, plan);
  EXPECT_EQ(after.size(), 2u);
  EXPECT_EQ(std::find(after.begin(), after.end(), before[0]), after.end());
  EXPECT_THAT(plan["how"].get<std::string>(), HasSubstr("hotter than average"));
}

TEST(PlaceCommand, BadUplinkLoadFileIsExitTwoNamingTheLine) {
  const std::string path = ::testing::TempDir() + "/bad-uplink-load.txt";
  {
    std::ofstream file(path);
    file << "# comment\nno-such-switch 0.5\n";
  }
  Result r = RunCli({"place", "--fabric", "preset:superpod-4su", "--job", "tp=8,pp=1,dp=2",
                     "--uplink-load", path});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("bad-uplink-load.txt:2: unknown switch 'no-such-switch'"));
}

// The blocks of a plan's hosts (from `place --json`), in order of first use.
std::vector<int32_t> JsonPlanBlocks(const Fabric& fabric, const std::string& json) {
  std::vector<int32_t> blocks;
  const nlohmann::json plan = nlohmann::json::parse(json);
  for (const auto& host : plan["hosts"]) {
    const int32_t b = fabric.hosts()[*fabric.FindHost(host.get<std::string>())].block;
    if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) blocks.push_back(b);
  }
  return blocks;
}

TEST(PlaceCommand, LedgerCopyPlacesAroundItsAllocationsAndTheUplinkLoadTheirPlansStored) {
  // Four blocks of two 2-GPU hosts; a held job on all of block 0 and one host of block 1
  // whose stored plan says it fills their leaves' uplinks.
  FabricPtr fabric = *GenerateClos(::topoplace::testing::TinyClos(/*blocks=*/4, /*nodes=*/2));
  const std::string dir = ::testing::TempDir() + "/place-ledger-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fabric_file = dir + "/ledger-tiny.json";
  ASSERT_TRUE(SaveFabricFile(*fabric, fabric_file).ok());
  const std::string db = dir + "/ledger-copy.db";
  const std::vector<HostId> held = {fabric->blocks()[0].hosts[0], fabric->blocks()[0].hosts[1],
                                    fabric->blocks()[1].hosts[0]};
  {
    auto ledger = store::SqliteLedger::Open(db, fabric, ledger::RealClock());
    ASSERT_TRUE(ledger.ok()) << ledger.status();
    store::ReserveRequest reserve;
    for (HostId h : held) {
      for (GpuId g : fabric->hosts()[h].gpus) reserve.gpus.push_back(g);
    }
    for (int b : {0, 1}) {
      for (SwitchId leaf : fabric->blocks()[b].leaves) {
        reserve.uplink_offer.push_back({fabric->switches()[leaf].name, 40e9});
      }
    }
    reserve.job_spec = "tp=2,pp=1,dp=3,gpus_per_node=2";
    reserve.policy = "topoplace";
    reserve.plan_json = "{\n  \"schema\": \"topoplace.plan/v1\"\n}";
    reserve.ttl = store::kMaxReservationTtl;
    auto allocation = (*ledger)->Reserve(reserve);
    ASSERT_TRUE(allocation.ok()) << allocation.status();
  }
  const std::string job = "tp=2,pp=1,dp=3,gpus_per_node=2,model=70b,s=256,mb=1";
  // The same GPUs busy, no load known: the job fills the held job's half-used block.
  const std::string occupied = dir + "/ledger-occupied.txt";
  {
    std::ofstream out(occupied);
    for (HostId h : held) out << fabric->hosts()[h].name << "\n";
  }
  Result blind =
      RunCli({"place", "--fabric", fabric_file, "--occupied", occupied, "--job", job, "--json"});
  ASSERT_EQ(blind.exit_code, kExitOk) << blind.err;
  const std::vector<int32_t> blind_blocks = JsonPlanBlocks(*fabric, blind.out);
  EXPECT_NE(std::find(blind_blocks.begin(), blind_blocks.end(), 1), blind_blocks.end());
  // From the ledger copy: the same GPUs are held, and the job keeps off the hot blocks.
  Result steered =
      RunCli({"place", "--fabric", fabric_file, "--ledger", db, "--job", job, "--json"});
  ASSERT_EQ(steered.exit_code, kExitOk) << steered.err;
  for (int32_t b : JsonPlanBlocks(*fabric, steered.out)) {
    EXPECT_NE(b, 0);
    EXPECT_NE(b, 1);
  }
  // A missing database is an error, not an idle cluster.
  Result missing =
      RunCli({"place", "--fabric", fabric_file, "--ledger", dir + "/no-such.db", "--job", job});
  EXPECT_NE(missing.exit_code, kExitOk);
  EXPECT_THAT(missing.err, HasSubstr("--ledger: no database file at"));
  std::filesystem::remove_all(dir);
}

// `place --ledger DB --may-preempt`: two blocks of four 2-GPU hosts; a database copy whose
// live allocations are a 3-host job of priority 1 (block 0) and a 3-host job of priority 50
// (block 1). A 4-host job that must stay in one block is told to stop the first, in table
// and JSON; without the ledger the flag is refused (no running jobs to choose from).
TEST(PlaceCommand, MayPreemptNamesTheLowerPriorityAllocationFromALedgerCopy) {
  FabricPtr fabric = *GenerateClos(::topoplace::testing::TinyClos(/*blocks=*/2, /*nodes=*/4));
  const std::string dir = ::testing::TempDir() + "/place-preempt-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fabric_file = dir + "/tiny.json";
  ASSERT_TRUE(SaveFabricFile(*fabric, fabric_file).ok());
  const std::string db = dir + "/copy.db";
  std::string low_id;
  {
    auto ledger = store::SqliteLedger::Open(db, fabric, ledger::RealClock());
    ASSERT_TRUE(ledger.ok()) << ledger.status();
    for (int b : {0, 1}) {
      store::ReserveRequest reserve;
      for (int i = 0; i < 3; ++i) {
        for (GpuId g : fabric->hosts()[fabric->blocks()[b].hosts[i]].gpus)
          reserve.gpus.push_back(g);
      }
      reserve.job_spec = b == 0 ? "tp=2,pp=1,dp=3,gpus_per_node=2,priority=1"
                                : "tp=2,pp=1,dp=3,gpus_per_node=2,priority=50";
      reserve.policy = "topoplace";
      reserve.ttl = store::kMaxReservationTtl;
      auto allocation = (*ledger)->Reserve(reserve);
      ASSERT_TRUE(allocation.ok()) << allocation.status();
      if (b == 0) low_id = allocation->id;
    }
  }
  const std::string job = "tp=2,pp=1,dp=4,gpus_per_node=2,max_tier=block,priority=10";
  Result table =
      RunCli({"place", "--fabric", fabric_file, "--ledger", db, "--job", job, "--may-preempt"});
  ASSERT_EQ(table.exit_code, kExitOk) << table.err;
  EXPECT_THAT(table.out, HasSubstr("preemption: stop 1 allocation(s) to fit in block 0"));
  EXPECT_THAT(table.out, HasSubstr(low_id));
  Result json = RunCli(
      {"place", "--fabric", fabric_file, "--ledger", db, "--job", job, "--may-preempt", "--json"});
  ASSERT_EQ(json.exit_code, kExitOk) << json.err;
  const nlohmann::json parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["schema"], "topoplace.preemption/v1");
  ASSERT_EQ(parsed["victims"].size(), 1u);
  EXPECT_EQ(parsed["victims"][0]["allocation_id"], low_id);
  EXPECT_EQ(parsed["victims"][0]["priority"], 1);
  EXPECT_EQ(parsed["plan"]["schema"], "topoplace.plan/v1");

  Result no_ledger =
      RunCli({"place", "--fabric", fabric_file, "--load", "0.5", "--job", job, "--may-preempt"});
  EXPECT_NE(no_ledger.exit_code, kExitOk);
  EXPECT_THAT(no_ledger.err, HasSubstr("--may-preempt needs the running jobs"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace topoplace::cli
