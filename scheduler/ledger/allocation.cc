#include "scheduler/ledger/allocation.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace topoplace::ledger {
namespace {
constexpr absl::string_view kIdPrefix = "alloc-";
}  // namespace

absl::string_view AllocationStateName(AllocationState state) {
  switch (state) {
    case AllocationState::kReserved:
      return "reserved";
    case AllocationState::kCommitted:
      return "committed";
    case AllocationState::kReleased:
      return "released";
    case AllocationState::kExpired:
      return "expired";
  }
  return "unknown";
}

std::optional<AllocationState> ParseAllocationState(absl::string_view name) {
  for (AllocationState s : {AllocationState::kReserved, AllocationState::kCommitted,
                            AllocationState::kReleased, AllocationState::kExpired}) {
    if (AllocationStateName(s) == name) return s;
  }
  return std::nullopt;
}

std::string FormatAllocationId(int64_t n) { return absl::StrCat(kIdPrefix, n); }

std::optional<int64_t> ParseAllocationId(absl::string_view id) {
  if (!absl::ConsumePrefix(&id, kIdPrefix)) return std::nullopt;
  int64_t n = 0;
  if (!absl::SimpleAtoi(id, &n) || n <= 0) return std::nullopt;
  return n;
}

}  // namespace topoplace::ledger
