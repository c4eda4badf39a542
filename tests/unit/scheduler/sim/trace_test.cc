// Trace formats: the Philly-derived CSV and the native format parse into the same jobs;
// every malformed line is rejected with its line number.
#include "scheduler/sim/trace.h"

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/sim/trace_csv.h"
#include "scheduler/sim/trace_native.h"

namespace topoplace::sched::sim {
namespace {

using ::testing::HasSubstr;

constexpr char kHeader[] = "#job id,arrival time (sec),topology,shape,size,duration (sec)\n";

TEST(CsvTrace, ParsesPhillyLinesIntoJobsSortedByArrival) {
  const std::string text = std::string(kHeader) +
                           "7,50.0,CLOS,8,8,3600.0\n"
                           "3,10.5,CLOS,1,1,60\n"
                           "\n"
                           "5,10.5,CLOS,2+2,4,120.0\n";
  absl::StatusOr<Trace> trace = ParseCsvTrace(text, "t.csv");
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->jobs.size(), 3u);
  // Same arrival: by id.
  EXPECT_EQ(trace->jobs[0].id, 3);
  EXPECT_EQ(trace->jobs[1].id, 5);
  EXPECT_EQ(trace->jobs[2].id, 7);
  EXPECT_DOUBLE_EQ(trace->jobs[0].arrival_s, 10.5);
  EXPECT_DOUBLE_EQ(trace->jobs[2].duration_s, 3600);
  EXPECT_EQ(trace->jobs[1].spec.world_size(), 4);
  EXPECT_EQ(trace->jobs[2].spec.world_size(), 8);
  EXPECT_EQ(trace->jobs[0].line, 3);
}

struct BadLine {
  const char* line;
  const char* message;  // expected in the error after "bad.csv:2: "
};

// Test names of the cases below, in order.
constexpr const char* kBadLineNames[] = {"FieldCount", "JobId",    "NegativeArrival", "NanArrival",
                                         "ZeroSize",   "TextSize", "TextDuration"};

void PrintTo(const BadLine& c, std::ostream* os) { *os << "'" << c.line << "'"; }

class CsvTraceBadLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(CsvTraceBadLine, RejectedWithItsLineNumber) {
  const std::string text = std::string(kHeader) + GetParam().line + "\n0,1,CLOS,1,1,1\n";
  absl::StatusOr<Trace> trace = ParseCsvTrace(text, "bad.csv");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(trace.status().message(), HasSubstr("bad.csv:2: "));
  EXPECT_THAT(trace.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(Cases, CsvTraceBadLine,
                         ::testing::Values(BadLine{"1,0,CLOS,1,1",
                                                   "expected 6 comma-separated fields"},
                                           BadLine{"x,0,CLOS,1,1,5", "field 'job id'"},
                                           BadLine{"1,-3,CLOS,1,1,5", "field 'arrival time'"},
                                           BadLine{"1,nan,CLOS,1,1,5", "field 'arrival time'"},
                                           BadLine{"1,0,CLOS,1,0,5", "field 'size'"},
                                           BadLine{"1,0,CLOS,1,two,5", "field 'size'"},
                                           BadLine{"1,0,CLOS,1,1,oops", "field 'duration'"}),
                         [](const ::testing::TestParamInfo<BadLine>& info) {
                           return std::string(kBadLineNames[info.index]);
                         });

TEST(NativeTrace, ParsesFullJobSpecs) {
  const std::string text = std::string(kNativeTraceHeader) +
                           "\n# comment\n"
                           "1 0 3600 tp=8,pp=4,dp=2,model=70b\n"
                           "2\t60\t600\ttp=8,pp=1,dp=4,dp_bytes=2e9,max_tier=block\n";
  absl::StatusOr<Trace> trace = ParseNativeTrace(text, "n.trace");
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->jobs[0].spec.pp, 4);
  EXPECT_EQ(trace->jobs[0].spec.world_size(), 64);
  EXPECT_EQ(trace->jobs[1].spec.max_tier, MaxTier::kBlock);
  EXPECT_EQ(trace->jobs[1].line, 4);
}

TEST(NativeTrace, RejectsBadJobSpecWithLineNumber) {
  const std::string text =
      std::string(kNativeTraceHeader) + "\n1 0 10 tp=8,pp=1,dp=1\n" + "2 0 10 tp=3,pp=1,dp=1\n";
  absl::StatusOr<Trace> trace = ParseNativeTrace(text, "n.trace");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(trace.status().message(), HasSubstr("n.trace:3: job spec field 'tp'"));
}

TEST(NativeTrace, RejectsWrongFieldCount) {
  absl::StatusOr<Trace> trace = ParseNativeTrace("1 0 tp=8,pp=1,dp=1\n", "n.trace");
  ASSERT_FALSE(trace.ok());
  EXPECT_THAT(trace.status().message(), HasSubstr("n.trace:1: expected 4"));
}

TEST(NativeTrace, FormatParsesBackToTheSameJobs) {
  absl::StatusOr<Trace> csv =
      ParseCsvTrace(std::string(kHeader) + "1,0.25,CLOS,1,1,3\n2,7,CLOS,16,16,9\n", "t.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  absl::StatusOr<Trace> back = ParseNativeTrace(FormatNativeTrace(*csv), "back");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->jobs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->jobs[i].id, csv->jobs[i].id);
    EXPECT_DOUBLE_EQ(back->jobs[i].arrival_s, csv->jobs[i].arrival_s);
    EXPECT_EQ(FormatJobSpec(back->jobs[i].spec), FormatJobSpec(csv->jobs[i].spec));
  }
}

TEST(TraceFile, DetectsFormatFromFirstLine) {
  absl::StatusOr<Trace> native = LoadTraceFile(TOPOPLACE_FIXTURES_DIR "/traces/tiny-hand.trace");
  ASSERT_TRUE(native.ok()) << native.status();
  EXPECT_EQ(native->jobs.size(), 5u);
  absl::StatusOr<Trace> csv = LoadTraceFile(TOPOPLACE_FIXTURES_DIR "/traces/philly-head.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_EQ(csv->jobs.size(), 5u);
  absl::StatusOr<Trace> bad = LoadTraceFile(TOPOPLACE_FIXTURES_DIR "/traces/malformed.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("malformed.csv:3: field 'duration'"));
  EXPECT_EQ(LoadTraceFile("/nonexistent/trace.csv").status().code(), absl::StatusCode::kNotFound);
}

TEST(Trace, LoadScaleDividesArrivals) {
  Trace trace;
  TraceJob job;
  job.arrival_s = 100;
  job.duration_s = 50;
  trace.jobs.push_back(job);
  ASSERT_TRUE(ScaleLoad(trace, 4).ok());
  EXPECT_DOUBLE_EQ(trace.jobs[0].arrival_s, 25);   // 100 / 4
  EXPECT_DOUBLE_EQ(trace.jobs[0].duration_s, 50);  // unchanged
  EXPECT_EQ(ScaleLoad(trace, 0).code(), absl::StatusCode::kInvalidArgument);
}

// Two jobs of 16 GPUs x 100 s and one of 8 x 200 s (4,800 GPU-seconds) arriving over
// 100 s on 96 GPUs: 4,800 / (96 x 100) = 0.5; four times faster arrivals offer 2.
TEST(Trace, OfferedLoadIsWorkOverTheFabricDuringTheArrivalsAndScalesWithTheLoad) {
  Trace trace;
  const auto job = [](double arrival, int dp, double duration) {
    TraceJob j;
    j.arrival_s = arrival;
    j.duration_s = duration;
    j.spec = *ParseJobSpec(absl::StrCat("tp=8,pp=1,dp=", dp));
    return j;
  };
  trace.jobs = {job(50, 2, 100), job(100, 1, 200), job(150, 2, 100)};
  EXPECT_DOUBLE_EQ(OfferedLoad(trace, 96), 0.5);
  ASSERT_TRUE(ScaleLoad(trace, 4).ok());
  EXPECT_DOUBLE_EQ(OfferedLoad(trace, 96), 2);
  trace.jobs.resize(1);
  EXPECT_EQ(OfferedLoad(trace, 96), 0) << "one arrival is no span";
  EXPECT_EQ(OfferedLoad(Trace{}, 96), 0);
}

}  // namespace
}  // namespace topoplace::sched::sim
