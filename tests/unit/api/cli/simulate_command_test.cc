// `topoplace simulate` as a user runs it: bad input is exit 2 with the file and line,
// the JSON has one object per policy with stable keys, --report writes the files,
// --offered-load sets the load the trace offers, --jobs-out records every job.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/run_command.h"

namespace topoplace {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::ShellQuote;

std::string Cli(const std::string& args) { return std::string(TOPOPLACE_CLI) + " " + args; }
const std::string kFixtures = TOPOPLACE_FIXTURES_DIR "/traces/";

TEST(SimulateCommand, MalformedTraceLineIsExitTwoWithFileAndLine) {
  auto r = RunCommand(Cli("simulate --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "malformed.csv") + " --policy first-fit"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("malformed.csv:3: field 'duration'"));
}

TEST(SimulateCommand, UnknownPolicyIsExitTwo) {
  auto r = RunCommand(Cli("simulate --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "philly-head.csv") + " --policy nope"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(SimulateCommand, JsonHasOneObjectPerPolicyInOrder) {
  auto r =
      RunCommand(Cli("simulate --json --fabric preset:superpod-4su --trace " +
                     ShellQuote(kFixtures + "philly-head.csv") + " --policy topoplace,first-fit"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "topoplace.simulation/v1");
  EXPECT_EQ(j["jobs"], 5);
  ASSERT_EQ(j["policies"].size(), 2u);
  EXPECT_EQ(j["policies"][0]["policy"], "topoplace");
  EXPECT_EQ(j["policies"][1]["policy"], "first-fit");
  for (const char* key :
       {"total_spine_bytes", "frac_jobs_cross_block", "mean_queue_s", "p95_queue_s", "mean_jct_s",
        "gpu_utilisation", "mean_fragmented_gpus", "place_mean_us"}) {
    EXPECT_TRUE(j["policies"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["policies"][0]["completed"], 5);
}

// The GPUs' constants are the fabric's model's unless --gpu-model names another;
// --comm-scale is recorded with them; a model the table lacks is exit 2 naming the known.
TEST(SimulateCommand, GpuModelIsTheFabricsUnlessNamedAndCommScaleIsRecorded) {
  const std::string trace = " --trace " + ShellQuote(kFixtures + "philly-head.csv");
  auto run = [&](const std::string& fabric, const std::string& flags) {
    auto r = RunCommand(
        Cli("simulate --json --fabric " + fabric + trace + " --policy first-fit" + flags));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  nlohmann::json j = run("preset:superpod-4su", "");
  EXPECT_EQ(j["gpu_model"], "H100");
  EXPECT_EQ(j["nvlink_gbps"], 3600);
  EXPECT_EQ(j["gpu_flops"], 400e12);
  EXPECT_EQ(j["comm_scale"], 1);
  EXPECT_GT(j["nvlink_efficiency"].get<double>(), 0.8);
  EXPECT_LT(j["nvlink_efficiency"].get<double>(), 0.85);
  EXPECT_EQ(j["nic_efficiency"], 0.96);
  j = run("preset:gb200-nvl72", "");
  EXPECT_EQ(j["gpu_model"], "GB200");
  EXPECT_EQ(j["nvlink_gbps"], 7200);
  j = run("preset:gb200-nvl72", " --gpu-model h100 --comm-scale 2");
  EXPECT_EQ(j["gpu_model"], "H100");
  EXPECT_EQ(j["nvlink_gbps"], 3600);
  EXPECT_EQ(j["comm_scale"], 2);

  auto r = RunCommand(Cli("simulate --fabric preset:superpod-4su" + trace + " --gpu-model A100"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("--gpu-model: unknown model 'A100', expected one of H100, GB200, GH200"));
  r = RunCommand(Cli("simulate --fabric preset:superpod-4su" + trace + " --comm-scale 0"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--comm-scale: expected a factor > 0"));
}

// On NVLink racks the engine is told each job's run (its duration left times
// --run-estimate) and topoplace may wait for faster racks with it: told runs a thousand
// times shorter, no wait is worth it and the outcome moves. The factor is a finite
// number > 0, else exit 2 naming the flag.
TEST(SimulateCommand, RunEstimateIsTheRunTheEngineIsToldOfAndMovesTheWaits) {
  auto run = [&](const std::string& flags) {
    auto r = RunCommand(
        Cli("simulate --json --fabric preset:gb200-nvl72 --trace synthetic:large-mix --jobs 300"
            " --policy topoplace --network shared --ecmp hash --offered-load 0.7,0.85" +
            flags));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  const nlohmann::json told = run("");
  const nlohmann::json short_runs = run(" --run-estimate 0.001");
  ASSERT_EQ(told["runs"].size(), 2u);
  ASSERT_EQ(short_runs["runs"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NE(told["runs"][i]["policies"][0]["mean_jct_s"].get<double>(),
              short_runs["runs"][i]["policies"][0]["mean_jct_s"].get<double>())
        << "the waits for faster racks read the run time, load " << i;
  }
  for (const char* bad : {"0", "-1", "inf"}) {
    auto r =
        RunCommand(Cli("simulate --fabric preset:gb200-nvl72 --trace synthetic:large-mix"
                       " --jobs 10 --policy topoplace --run-estimate " +
                       std::string(bad)));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("--run-estimate: expected a finite factor > 0")) << bad;
  }
}

TEST(SimulateCommand, ReportFlagWritesMarkdownAndCharts) {
  const std::string dir = ::testing::TempDir() + "/simulate-report";
  auto r = RunCommand(Cli("simulate --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "tiny-hand.trace") +
                          " --policy first-fit --report " + ShellQuote(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/report.md"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/utilisation.svg"));
}

TEST(SimulateCommand, LoadSweepRunsEachLoadAndWritesTheCurvesAndOneReportPerLoad) {
  const std::string dir = ::testing::TempDir() + "/simulate-sweep";
  auto r = RunCommand(Cli("simulate --json --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "tiny-hand.trace") +
                          " --policy topoplace,first-fit --network shared --ecmp hash"
                          " --load-sweep 4,1 --report " +
                          ShellQuote(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "topoplace.simulation-sweep/v1");
  ASSERT_EQ(j["load_factors"], nlohmann::json::parse("[1, 4]"));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][1]["network"], "shared");
  EXPECT_EQ(j["runs"][1]["ecmp"], "hash");
  // 4x the load: arrival times divided by 4.
  EXPECT_EQ(j["runs"][1]["load_scale"], 4);
  EXPECT_TRUE(j["runs"][0]["policies"][0].contains("total_spine_bytes_lower_bound"));
  for (const char* file : {"report.md", "mean_jct.svg", "p95_jct.svg", "mean_queue.svg",
                           "spine_bytes.svg", "load-1x/report.md", "load-4x/jct_cdf.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + file)) << file;
  }
  std::ifstream in(dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(md, HasSubstr("load factor 1x, arrival times / 1)"));
  EXPECT_THAT(md, HasSubstr("load factor 4x, arrival times / 4)"));
  EXPECT_THAT(md, HasSubstr("ECMP hashes each flow onto one uplink"));
  EXPECT_THAT(md, HasSubstr("| lower bound |"));
}

TEST(SimulateCommand, AnOfferedLoadSweepNamesEachLoadByItsShareAndWhetherItIsStable) {
  const std::string dir = ::testing::TempDir() + "/simulate-offered-sweep";
  auto r = RunCommand(Cli("simulate --json --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "tiny-hand.trace") +
                          " --policy topoplace,first-fit --offered-load 0.5,1.5 --report " +
                          ShellQuote(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(md, HasSubstr("offering 50%, 150% of the fabric's GPU-hours"));
  EXPECT_THAT(md, HasSubstr("## 50% offered load (stable: compare JCT; load factor 0.5x"));
  EXPECT_THAT(md, HasSubstr("## 150% offered load (overload: compare throughput and makespan;"));
  EXPECT_THAT(md, HasSubstr("| GPU-h slowdown | GPU-h/day | makespan |"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/gpu_hours_per_day.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/load-1.5x/report.md"));
}

TEST(SimulateCommand, LoadAwareRunIsReproducibleFromItsReport) {
  const std::string dir = ::testing::TempDir() + "/simulate-load-aware";
  auto r = RunCommand(Cli(
      "simulate --fabric preset:superpod-4su --trace " + ShellQuote(kFixtures + "tiny-hand.trace") +
      " --policy topoplace --network shared --load-aware --report " + ShellQuote(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(md, HasSubstr("--network shared --load-aware"));
}

TEST(SimulateCommand, BadLoadSweepOrEcmpIsExitTwoNamingTheFlag) {
  const std::string base = "simulate --fabric preset:superpod-4su --trace " +
                           ShellQuote(kFixtures + "tiny-hand.trace") + " --policy first-fit ";
  auto r = RunCommand(Cli(base + "--load-sweep 1,zero"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--load-sweep"));
  EXPECT_THAT(r.err, HasSubstr("'zero'"));
  r = RunCommand(Cli(base + "--load-sweep 1,-4"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunCommand(Cli(base + "--network shared --ecmp random"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--ecmp"));
}

TEST(SimulateCommand, MalformedFaultTraceIsExitTwoWithFileAndLine) {
  auto r = RunCommand(Cli("simulate --fabric preset:superpod-4su --trace " +
                          ShellQuote(kFixtures + "tiny-hand.trace") +
                          " --policy first-fit --network shared --faults " +
                          ShellQuote(TOPOPLACE_FIXTURES_DIR "/faults/unknown-host.faults")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("unknown-host.faults:3: field 'element': no host 'no-such-host'"));
}

TEST(SimulateCommand, FaultsNeedSharedLinksAndASweepNeedsTheModel) {
  const std::string base = "simulate --fabric preset:superpod-4su --trace " +
                           ShellQuote(kFixtures + "tiny-hand.trace") + " --policy first-fit ";
  auto r = RunCommand(Cli(base + "--faults published"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--network shared"));
  r = RunCommand(Cli(base + "--network shared --fault-sweep 0,x"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--fault-sweep"));
  r = RunCommand(Cli(base + "--network shared --fault-sweep 0,1 --faults " +
                     ShellQuote(TOPOPLACE_FIXTURES_DIR "/faults/unknown-host.faults")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("replayed as written"));
  // Hardening round four, finding 8: --fault-scale 1e6 ran out of memory (std::bad_alloc).
  r = RunCommand(Cli(base + "--network shared --faults published --fault-scale 1e6"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--fault-scale: expected 0 to 1000"));
  r = RunCommand(Cli(base + "--network shared --fault-sweep 0,1e9"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--fault-sweep: expected 0 to 1000"));
}

// A fault sweep on the large mix: at scale 0 nothing is interrupted; at 20x the published
// rates jobs are, and what the model replayed can be written out and replayed again with
// the same figures. topoplace gets a control run blind to link faults.
TEST(SimulateCommand, FaultSweepReportsGoodputPerPolicyAndScaleAndReplaysItsSchedule) {
  const std::string dir = ::testing::TempDir() + "/simulate-faults";
  const std::string schedule = ::testing::TempDir() + "/simulate-faults.faults";
  const std::string base =
      "simulate --json --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 60 "
      "--policy topoplace,first-fit --network shared ";
  auto r = RunCommand(Cli(base + "--fault-sweep 0,20 --report " + ShellQuote(dir)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "topoplace.fault-sweep/v1");
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["fault_scale"], 0);
  const nlohmann::json& calm = j["runs"][0]["simulation"]["policies"][0]["faults"];
  const nlohmann::json& stormy = j["runs"][1]["simulation"]["policies"][1]["faults"];
  EXPECT_EQ(calm["faults_applied"], 0);
  EXPECT_EQ(calm["interruptions"], 0);
  EXPECT_GT(stormy["faults_applied"], 0);
  EXPECT_GT(stormy["interruptions"], 0);
  EXPECT_GT(stormy["lost_gpu_hours"], 0);
  EXPECT_LT(stormy["goodput"], 1);
  std::ifstream in(dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(md, HasSubstr("| policy | fault scale |"));
  EXPECT_THAT(md, HasSubstr("Llama 3"));
  EXPECT_THAT(md, HasSubstr("| link health gains |"));
  // The control run, topoplace blind to link faults, follows the policies asked for.
  ASSERT_EQ(j["runs"][1]["simulation"]["policies"].size(), 3u);
  EXPECT_EQ(j["runs"][1]["simulation"]["policies"][2]["policy"], "topoplace-blind");
  // Write the 20x schedule out and replay it: the same interruptions.
  r = RunCommand(
      Cli(base + "--faults published --fault-scale 20 --write-faults " + ShellQuote(schedule)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCommand(Cli(base + "--faults " + ShellQuote(schedule)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json replay = nlohmann::json::parse(r.out);
  EXPECT_EQ(replay["runs"][0]["simulation"]["policies"][1]["faults"]["interruptions"],
            stormy["interruptions"]);
}

TEST(SimulateCommand, PreemptionRunsReportTheHighPriorityJobsAndWhatWasStopped) {
  auto r = RunCommand(
      Cli("simulate --json --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 300 "
          "--policy topoplace --high-priority-share 0.3 --preemption topology --look-ahead"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json p = nlohmann::json::parse(r.out)["policies"][0]["preemption"];
  EXPECT_EQ(p["mode"], "topology");
  EXPECT_EQ(p["look_ahead"], true);
  EXPECT_GT(p["high_priority_jobs"].get<int>(), 0);
  for (const char* key : {"high_mean_jct_s", "high_p95_jct_s", "low_mean_jct_s", "preemptions",
                          "preemption_rounds", "wasted_preemption_rounds", "preempted_gpu_hours"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
  auto table =
      RunCommand(Cli("simulate --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 300 "
                     "--policy topoplace --high-priority-share 0.3 --preemption priority-only"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("priority-only"));
  EXPECT_THAT(table.out, HasSubstr("lost GPU-h"));
}

TEST(SimulateCommand, BadPreemptionOrShareIsExitTwoNamingTheFlag) {
  const std::string base =
      "simulate --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 10 ";
  auto mode = RunCommand(Cli(base + "--preemption sometimes"));
  auto share = RunCommand(Cli(base + "--high-priority-share 2"));
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_THAT(mode.err, HasSubstr("--preemption"));
  EXPECT_EQ(share.exit_code, 2);
  EXPECT_THAT(share.err, HasSubstr("high-priority share"));
}

TEST(SimulateCommand, OfferedLoadSetsTheShareOfTheFabricTheTraceOffers) {
  auto r = RunCommand(
      Cli("simulate --json --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 60"
          " --policy first-fit --offered-load 0.85,0.3"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "topoplace.simulation-sweep/v1") << "a list is a sweep";
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_NEAR(j["runs"][0]["offered_load"].get<double>(), 0.3, 1e-9);
  EXPECT_NEAR(j["runs"][1]["offered_load"].get<double>(), 0.85, 1e-9);
  // The same jobs arrive 0.85 / 0.3 times faster.
  EXPECT_NEAR(j["runs"][1]["load_scale"].get<double>() / j["runs"][0]["load_scale"].get<double>(),
              0.85 / 0.3, 1e-9);
  for (const char* key : {"p99_jct_s", "gpu_hour_weighted_slowdown", "gpu_hours_per_day"}) {
    EXPECT_TRUE(j["runs"][0]["policies"][0].contains(key)) << key;
  }
  const nlohmann::json& sizes = j["runs"][0]["policies"][0]["jct_by_size"];
  ASSERT_EQ(sizes.size(), 5u);
  EXPECT_EQ(sizes[0]["max_gpus"], 8);
  EXPECT_EQ(sizes[3]["max_gpus"], 1024);
  EXPECT_TRUE(sizes[4]["max_gpus"].is_null()) << "larger than every bound";
  int64_t jobs = 0;
  for (const nlohmann::json& c : sizes) jobs += c["jobs"].get<int64_t>();
  EXPECT_EQ(jobs, j["runs"][0]["policies"][0]["completed"].get<int64_t>());

  auto both =
      RunCommand(Cli("simulate --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 60"
                     " --offered-load 0.5 --load-scale 2"));
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_THAT(both.err, HasSubstr("without --load-scale"));
  auto zero =
      RunCommand(Cli("simulate --fabric preset:superpod-4su --trace synthetic:large-mix --jobs 60"
                     " --offered-load 0"));
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("--offered-load"));
}

// The per-job record agrees with the summary: per policy and load, the completed jobs'
// mean of end_s - arrival_s is the policy's mean_jct_s, and every job is there once.
TEST(SimulateCommand, JobsOutHasEveryJobOfEveryRunAndItsMeanIsTheSummarys) {
  const std::string file = ::testing::TempDir() + "/simulate-jobs.jsonl";
  auto r = RunCommand(
      Cli("simulate --json --fabric preset:gb200-nvl72 --trace synthetic:moe-mix --jobs 80"
          " --policy topoplace,random --network shared --ecmp hash --offered-load 0.5,0.7"
          " --seed 2 --jobs-out " +
          ShellQuote(file)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  std::ifstream in(file);
  std::map<std::pair<std::string, double>, std::pair<double, int>> jct;  // sum, count
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json job = nlohmann::json::parse(line);
    ++lines;
    for (const char* key :
         {"policy", "load", "seed", "id", "gpus", "arrival_s", "start_s", "end_s", "slowdown",
          "predicted_slowdown", "slowdown_at_start", "nvlink_domains", "blocks", "pods",
          "off_nvlink_bytes", "spine_bytes", "interruptions", "preemptions", "spec"}) {
      ASSERT_TRUE(job.contains(key)) << key << " in " << line;
    }
    EXPECT_EQ(job["seed"], 2);
    EXPECT_THAT(job["spec"].get<std::string>(), HasSubstr("tp=")) << line;
    EXPECT_GE(job["nvlink_domains"].get<int>(), 1) << line;
    if (job["outcome"] != "completed") continue;
    EXPECT_GE(job["predicted_slowdown"].get<double>(), 1.0) << line;
    EXPECT_GE(job["slowdown_at_start"].get<double>(), 1.0) << line;
    auto& [sum, count] = jct[{job["policy"].get<std::string>(), job["load"].get<double>()}];
    sum += job["end_s"].get<double>() - job["arrival_s"].get<double>();
    ++count;
  }
  EXPECT_EQ(lines, 2 * 2 * 80) << "two policies at two loads, 80 jobs each";
  // The per-job reader (tests/testing/jobs_by_class.py) summarises the same file by class
  // and pairs each job under two policies.
  auto classes =
      RunCommand("python3 " + ShellQuote(TOPOPLACE_FIXTURES_DIR "/../testing/jobs_by_class.py") +
                 " " + ShellQuote(file) + " --load 0.5 --versus topoplace,random");
  ASSERT_EQ(classes.exit_code, 0) << classes.err;
  EXPECT_THAT(classes.out, HasSubstr("| 0.5 | topoplace | all | 80 |"));
  EXPECT_THAT(classes.out, HasSubstr("load 0.5: topoplace - random mean JCT"));
  for (const nlohmann::json& run : summary["runs"]) {
    for (const nlohmann::json& policy : run["policies"]) {
      const auto& [sum, count] =
          jct[{policy["policy"].get<std::string>(), run["offered_load"].get<double>()}];
      ASSERT_EQ(count, policy["completed"].get<int>());
      EXPECT_DOUBLE_EQ(sum / count, policy["mean_jct_s"].get<double>());
    }
  }
}

// The CLI guide's synopsis of `simulate` names every flag its --help lists.
TEST(SimulateCommand, TheCliGuidesSynopsisListsEveryFlag) {
  auto help = RunCommand(Cli("simulate --help"));
  ASSERT_EQ(help.exit_code, 0) << help.err;
  std::set<std::string> flags;
  const std::regex option(R"(^\s+(?:-\w,\s*)?(--[a-z][a-z-]*))");
  std::istringstream lines(help.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[1] != "--help") flags.insert(m[1]);
  }
  EXPECT_GT(flags.size(), 20u) << help.out;
  std::ifstream in(TOPOPLACE_CLI_GUIDE);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t start = readme.find("topoplace simulate --fabric");
  ASSERT_NE(start, std::string::npos) << "no simulate synopsis in docs/guides/cli.md";
  const std::string synopsis = readme.substr(start, readme.find("\n#", start) - start);
  // The flag as a whole word: "--jobs" is not found inside "--jobs-out".
  const auto names = [&](const std::string& flag) {
    for (size_t at = synopsis.find(flag); at != std::string::npos;
         at = synopsis.find(flag, at + 1)) {
      const char next = at + flag.size() < synopsis.size() ? synopsis[at + flag.size()] : ' ';
      if (next != '-' && !std::isalpha(static_cast<unsigned char>(next))) return true;
    }
    return false;
  };
  for (const std::string& flag : flags) {
    EXPECT_TRUE(names(flag)) << flag << " is missing from the CLI guide's simulate synopsis";
  }
}

}  // namespace
}  // namespace topoplace
