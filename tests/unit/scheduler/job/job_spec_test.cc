#include "scheduler/job/job_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace topoplace::sched {
namespace {

using ::testing::HasSubstr;

// The job spec contract's table in docs/DESIGN.md is the parser's own table of keys: a key
// added, renamed or described differently in one and not the other fails here.
TEST(JobSpec, TheDesignDocsTableIsTheParsersTableOfKeys) {
  std::ifstream in(TP_DESIGN_MD);
  ASSERT_TRUE(in) << TP_DESIGN_MD;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string table = JobSpecKeysTable();
  EXPECT_NE(doc.find("### Job spec"), std::string::npos);
  EXPECT_NE(doc.find(table), std::string::npos)
      << "docs/DESIGN.md's job spec table should read, exactly:\n"
      << table;
}

TEST(JobSpec, AnUnknownKeyIsRefusedListingEveryKeyOfTheTable) {
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=8,pp=1,dp=1,colour=red");
  ASSERT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(),
              HasSubstr("job spec field 'colour': expected a known key (tp, pp"));
  for (const char* key : {"tp_across_nodes", "pp_bytes", "replace_on_restart", "hosts"}) {
    EXPECT_THAT(job.status().message(), HasSubstr(key));
  }
}

TEST(JobSpec, ParsesTheDesignExampleWithDefaults) {
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=8,pp=4,dp=16");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->tp, 8);
  EXPECT_EQ(job->pp, 4);
  EXPECT_EQ(job->dp, 16);
  EXPECT_EQ(job->cp, 1);
  EXPECT_EQ(job->ep, 1);
  EXPECT_EQ(job->gpus_per_node, 8);
  EXPECT_EQ(job->world_size(), 512);  // 8 * 4 * 16
  EXPECT_EQ(job->nodes(), 64);        // 512 / 8
  EXPECT_EQ(job->model.name, "70b");  // kDefaultModelPreset
  EXPECT_EQ(job->order, RankOrder::kTpCpEpDpPp);
  EXPECT_EQ(job->max_tier, MaxTier::kCluster);
  EXPECT_EQ(job->mode, ConstraintMode::kHard);
}

TEST(JobSpec, ParsesEveryKey) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(
      "tp=4,pp=2,dp=2,cp=2,ep=1,gpus=32,gpus_per_node=4,order=tp-cp-ep-pp-dp,"
      "h=4096,s=8192,b=2,layers=32,params=6.7b,mb=16,dtype=fp32,dp_bytes=1e9,"
      "max_tier=pod,mode=soft,exclude=b00-n000,b00-n001,hosts=b01-n000,b01-n001");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->world_size(), 32);
  EXPECT_EQ(job->order, RankOrder::kTpCpEpPpDp);
  EXPECT_EQ(job->model.name, "custom");
  EXPECT_EQ(job->model.hidden, 4096);
  EXPECT_EQ(job->model.seq, 8192);
  EXPECT_EQ(job->model.micro_batch, 2);
  EXPECT_DOUBLE_EQ(job->model.params, 6.7e9);
  EXPECT_EQ(job->model.micro_batches, 16);
  EXPECT_EQ(job->model.dtype_bytes, 4);
  EXPECT_DOUBLE_EQ(*job->bytes.dp, 1e9);
  EXPECT_EQ(job->max_tier, MaxTier::kPod);
  EXPECT_EQ(job->mode, ConstraintMode::kSoft);
  EXPECT_THAT(job->exclude, ::testing::ElementsAre("b00-n000", "b00-n001"));
  EXPECT_THAT(job->hosts, ::testing::ElementsAre("b01-n000", "b01-n001"));
}

// Hardening finding 2: a host entry is a host name (CheckHostName), so text that reached a
// spec's host list from outside (a node list, a pod annotation) cannot carry other fields.
TEST(JobSpec, HostEntriesThatAreNotHostNamesAreRefusedNamingTheEntry) {
  absl::Status blank = ParseJobSpec("tp=8,pp=1,dp=1,hosts=b03-n030 dp=2").status();
  EXPECT_EQ(blank.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(blank.message()), ::testing::HasSubstr("hosts[0]"));
  absl::Status escape = ParseJobSpec("tp=8,pp=1,dp=1,exclude=a,-rf").status();
  EXPECT_THAT(std::string(escape.message()), ::testing::HasSubstr("exclude[1]"));
}

TEST(JobSpec, PresetFieldsCanBeOverridden) {
  absl::StatusOr<JobSpec> job = ParseJobSpec("tp=8,pp=1,dp=1,model=405b,s=4096");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->model.hidden, 16384);
  EXPECT_EQ(job->model.seq, 4096);
  EXPECT_EQ(job->model.name, "405b+custom");
}

struct BadSpec {
  const char* spec;
  const char* field;  // the error must name it
};

class JobSpecRejects : public ::testing::TestWithParam<BadSpec> {};

TEST_P(JobSpecRejects, WithInvalidArgumentNamingTheField) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(GetParam().spec);
  ASSERT_FALSE(job.ok()) << GetParam().spec;
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(job.status().message()),
              HasSubstr(absl::StrCat("'", GetParam().field, "'")));
}

INSTANTIATE_TEST_SUITE_P(
    BadSpecs, JobSpecRejects,
    ::testing::Values(BadSpec{"tp=0,pp=1,dp=1", "tp"},           // degree < 1
                      BadSpec{"tp=x,pp=1,dp=1", "tp"},           // not a number
                      BadSpec{"tp=3,pp=1,dp=1", "tp"},           // 8 % 3 != 0
                      BadSpec{"tp=8,pp=1", "dp"},                // dp missing
                      BadSpec{"tp=8,pp=1,dp=2,gpus=8", "gpus"},  // 8*1*2 = 16 != 8
                      BadSpec{"tp=8,pp=1,dp=1,foo=1", "foo"},    // unknown key
                      BadSpec{"tp=8,pp=1,dp=1,model=13b", "model"},
                      BadSpec{"tp=8,pp=1,dp=1,dtype=int4", "dtype"},
                      BadSpec{"tp=8,pp=1,dp=1,max_tier=rack", "max_tier"},
                      BadSpec{"tp=8,pp=1,dp=1,mode=maybe", "mode"},
                      BadSpec{"tp=8,pp=1,dp=1,max_wait=soon", "max_wait"},
                      BadSpec{"tp=8,pp=1,dp=1,max_wait=-5m", "max_wait"},
                      BadSpec{"tp=8,pp=1,dp=1,max_wait=2y", "max_wait"},
                      BadSpec{"tp=8,pp=1,dp=1,order=pp-dp", "order"},
                      BadSpec{"tp=8,pp=1,dp=1,h=4096", "s"},       // shape incomplete
                      BadSpec{"tp=8,pp=100,dp=1,model=7b", "pp"},  // 100 stages > 32 layers
                      BadSpec{"tp=1,pp=1,dp=3,gpus_per_node=8", "gpus_per_node"},  // 3 % 8
                      BadSpec{"tp=8,pp=1,dp=1,params=0", "params"},
                      BadSpec{"tp=8,pp=1,dp=5,segment=2", "segment"},  // 5 nodes % 2
                      BadSpec{"tp=8,pp=1,dp=4,segment=0", "segment"},
                      BadSpec{"tp=8,pp=1,dp=1,priority=high", "priority"},
                      BadSpec{"tp=8,pp=1,dp=1,priority=4294967296", "priority"},   // 2^32
                      BadSpec{"tp=8,pp=1,dp=1,priority=-2147483649", "priority"},  // -2^31-1
                      BadSpec{"tp=8,pp=1,dp=1,replace_on_restart=42", "replace_on_restart"},
                      BadSpec{"tp=8,pp=1,dp=1,replace_on_restart=alloc-", "replace_on_restart"},
                      BadSpec{"tp=8,pp=1,dp=1,replace_on_restart=alloc-4x", "replace_on_restart"},
                      BadSpec{"", "spec"}));

// TP of whole nodes parses (the engine then keeps it inside one NVLink domain of the
// fabric); TP that would split a node's GPUs unevenly needs tp_across_nodes.
TEST(JobSpec, TpIsPartOfANodeOrWholeNodesUnlessTpAcrossNodes) {
  EXPECT_TRUE(ParseJobSpec("tp=16,pp=1,dp=1").ok());
  EXPECT_TRUE(ParseJobSpec("tp=8,pp=1,dp=1,gpus_per_node=4").ok());
  absl::StatusOr<JobSpec> uneven = ParseJobSpec("tp=12,pp=1,dp=2,model=175b");
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("'tp'"), std::string::npos) << uneven.status();
  EXPECT_TRUE(ParseJobSpec("tp=12,pp=1,dp=2,model=175b,tp_across_nodes=1").ok());
}

TEST(JobSpec, MaxWaitTakesSecondsOrMinutesOrHours) {
  for (const auto& [text, seconds] : std::vector<std::pair<std::string, double>>{
           {"90", 90}, {"90s", 90}, {"30m", 1800}, {"1.5h", 5400}, {"0", 0}}) {
    absl::StatusOr<JobSpec> job = ParseJobSpec("tp=8,pp=1,dp=2,max_tier=block,max_wait=" + text);
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE(job->max_wait_s.has_value()) << text;
    EXPECT_DOUBLE_EQ(*job->max_wait_s, seconds) << text;
  }
  EXPECT_FALSE(ParseJobSpec("tp=8,pp=1,dp=2")->max_wait_s.has_value());
  absl::StatusOr<JobSpec> odd = ParseJobSpec("tp=8,pp=1,dp=2,max_wait=1234567.25");
  ASSERT_TRUE(odd.ok());
  EXPECT_DOUBLE_EQ(*ParseJobSpec(FormatJobSpec(*odd))->max_wait_s, 1234567.25);
}

// Slurm's --segment: a divisor of the job's nodes, or larger than the job (Slurm then
// ignores it); a segment that splits a node count is refused as Slurm refuses it.
TEST(JobSpec, SegmentDividesTheNodesOrExceedsThem) {
  EXPECT_EQ(ParseJobSpec("tp=8,pp=1,dp=4")->segment, 0);
  EXPECT_EQ(ParseJobSpec("tp=8,pp=1,dp=4,segment=2")->segment, 2);
  EXPECT_EQ(ParseJobSpec("tp=8,pp=1,dp=4,segment=8")->segment, 8);
  EXPECT_FALSE(ParseJobSpec("tp=8,pp=1,dp=4,segment=3").ok());
}

// Kubernetes' PriorityClass values (int32: system-node-critical is 2,000,001,000, user
// classes may be negative) and Slurm's job priorities (uint32) all parse; none is 0.
TEST(JobSpec, PriorityHoldsKubernetesAndSlurmPriorities) {
  EXPECT_EQ(ParseJobSpec("tp=8,pp=1,dp=4")->priority, 0);
  for (int64_t p : {int64_t{2000001000}, int64_t{-5}, kMinPriority, kMaxPriority}) {
    absl::StatusOr<JobSpec> job = ParseJobSpec(absl::StrCat("tp=8,pp=1,dp=4,priority=", p));
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->priority, p);
    EXPECT_EQ(ParseJobSpec(FormatJobSpec(*job))->priority, p);
  }
  // The default leaves the canonical form as it was before priorities existed.
  EXPECT_EQ(FormatJobSpec(*ParseJobSpec("tp=8,pp=1,dp=4")).find("priority"), std::string::npos);
  JobSpec by_hand = *ParseJobSpec("tp=8,pp=1,dp=4");
  by_hand.priority = kMaxPriority + 1;
  EXPECT_FALSE(ValidateJobSpec(by_hand).ok());
}

TEST(JobSpec, FormatParsesBackToTheSameJob) {
  absl::StatusOr<JobSpec> job = ParseJobSpec(
      "tp=4,pp=2,dp=4,cp=2,model=7b,mb=4,max_tier=block,mode=soft,segment=2,priority=1000,"
      "replace_on_restart=alloc-17,exclude=a,b,hosts=c,d,e,f");
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<JobSpec> again = ParseJobSpec(FormatJobSpec(*job));
  ASSERT_TRUE(again.ok()) << again.status() << " for " << FormatJobSpec(*job);
  EXPECT_EQ(FormatJobSpec(*again), FormatJobSpec(*job));
  EXPECT_EQ(again->cp, 2);
  EXPECT_EQ(again->segment, 2);
  EXPECT_EQ(again->priority, 1000);
  EXPECT_EQ(again->replace_on_restart, "alloc-17");
  EXPECT_EQ(again->exclude, job->exclude);
  EXPECT_EQ(again->hosts, job->hosts);
}

}  // namespace
}  // namespace topoplace::sched
