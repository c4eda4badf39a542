// libFuzzer target for the etcd ledger's allocation record (store/etcd/allocation_record.h):
// any value under a live/ or done/ key must decode or give DataLoss, never a crash or a
// runaway inflation.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "store/etcd/allocation_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view value(reinterpret_cast<const char*>(data), size);
  (void)topoplace::store::DecodeAllocation("fuzz/live/1", value);
  return 0;
}
