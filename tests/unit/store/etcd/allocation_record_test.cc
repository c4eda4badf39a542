// The etcd ledger's record of an allocation: what it stores comes back whole, large records
// are deflated, and a damaged one is refused naming its key.
#include "store/etcd/allocation_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace topoplace::store {
namespace {

using ::testing::HasSubstr;

ledger::Allocation Committed(std::string plan_json) {
  ledger::Allocation a;
  a.id = "alloc-42";
  a.state = ledger::AllocationState::kCommitted;
  a.external_id = "slurm:7";
  a.job_spec = "tp=8,pp=4,dp=32";
  a.policy = "topoplace";
  a.fabric_version = 3;
  for (int h = 0; h < 128; ++h) {
    for (int g = 0; g < 8; ++g) a.gpus.push_back({absl::StrCat("b00-n", h), g});
  }
  a.plan_json = std::move(plan_json);
  a.request_id = "slurm-submit:1000:abc";
  a.created_at = absl::FromUnixSeconds(1'700'000'000);
  return a;
}

void ExpectSame(const ledger::Allocation& got, const ledger::Allocation& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.state, want.state);
  EXPECT_EQ(got.external_id, want.external_id);
  EXPECT_EQ(got.job_spec, want.job_spec);
  EXPECT_EQ(got.gpus.size(), want.gpus.size());
  EXPECT_EQ(got.gpus.back().host, want.gpus.back().host);
  EXPECT_EQ(got.plan_json, want.plan_json);
  EXPECT_EQ(got.request_id, want.request_id);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.expires_at, absl::InfiniteFuture());
}

TEST(AllocationRecord, ASmallRecordIsStoredAsItIsAndReadBack) {
  ledger::Allocation a = Committed("{}");
  a.gpus.resize(8);
  const std::string stored = EncodeAllocation(a);
  EXPECT_FALSE(absl::StartsWith(stored, "tpz1"));
  auto back = DecodeAllocation("live/42", stored);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(*back, a);
}

TEST(AllocationRecord, ALargePlanIsDeflatedAndReadBackWhole) {
  std::string plan = "{\"ranks\": [";
  for (int r = 0; r < 100'000; ++r) absl::StrAppend(&plan, "{\"rank\": ", r, ", \"gpu\": 3},");
  plan += "]}";
  const ledger::Allocation a = Committed(plan);
  const std::string stored = EncodeAllocation(a);
  EXPECT_TRUE(absl::StartsWith(stored, "tpz1"));
  EXPECT_LT(stored.size(), plan.size() / 5);
  auto back = DecodeAllocation("live/42", stored);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(*back, a);
}

TEST(AllocationRecord, ADamagedDeflatedRecordIsDataLossNamingTheKey) {
  std::string stored = EncodeAllocation(Committed(std::string(100'000, 'x')));
  ASSERT_TRUE(absl::StartsWith(stored, "tpz1"));
  stored[stored.size() / 2] ^= 0x55;
  auto back = DecodeAllocation("/p/ledger/live/42", stored);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss) << back.status();
  EXPECT_THAT(std::string(back.status().message()), HasSubstr("/p/ledger/live/42"));
}

TEST(AllocationRecord, ARecordClaimingAHugeSizeIsRefusedWithoutInflatingIt) {
  // The marker, then 0xffffffff bytes claimed: a bomb is refused before any allocation.
  const std::string stored = std::string("tpz1") + std::string(4, '\xff') + "junk";
  auto back = DecodeAllocation("live/9", stored);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss) << back.status();
  EXPECT_THAT(std::string(back.status().message()), HasSubstr("allowed"));
}

TEST(AllocationRecord, TheRecordedSeedsDecodeToOneAllocation) {
  for (const char* name : {"committed-plain.bin", "committed-deflated.bin"}) {
    std::ifstream in(absl::StrCat(TP_ETCD_RECORDS, "/", name), std::ios::binary);
    ASSERT_TRUE(in.good()) << name;
    const std::string stored((std::istreambuf_iterator<char>(in)), {});
    auto a = DecodeAllocation(name, stored);
    ASSERT_TRUE(a.ok()) << name << ": " << a.status();
    EXPECT_EQ(a->id, "alloc-7") << name;
    EXPECT_EQ(a->external_id, "slurm:7") << name;
    EXPECT_EQ(a->gpus.size(), 2u) << name;
  }
}

TEST(AllocationRecord, ATruncatedOrForeignValueIsDataLoss) {
  EXPECT_EQ(DecodeAllocation("live/1", "tpz").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeAllocation("live/1", "tpz1\x01").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeAllocation("live/1", "not a record").status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace topoplace::store
