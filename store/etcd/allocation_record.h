// An allocation as the etcd ledger stores it: the value of its live/ or done/ key
// (topoplace.ledger.v1.AllocationRecord, binary protobuf; records of 4 KiB or more, which
// is the plans of jobs past a few dozen GPUs, deflated with zlib: an 8,192-GPU plan's 2 MB
// of JSON takes about 90 KB, well inside etcd's request limit).
#ifndef TOPOPLACE_STORE_ETCD_ALLOCATION_RECORD_H_
#define TOPOPLACE_STORE_ETCD_ALLOCATION_RECORD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/ledger/allocation.h"

namespace topoplace::store {

// Precondition: `a.id` is "alloc-<n>".
std::string EncodeAllocation(const ledger::Allocation& a);
// The allocation stored under `key`; DataLoss naming the key when the value does not parse
// or holds an unknown state or id.
absl::StatusOr<ledger::Allocation> DecodeAllocation(absl::string_view key, absl::string_view value);

}  // namespace topoplace::store

#endif  // TOPOPLACE_STORE_ETCD_ALLOCATION_RECORD_H_
