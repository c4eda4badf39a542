// Renders ledger answers for people (aligned tables) and scripts (stable JSON with fixed
// key order). Allocation JSON keys (schema "topoplace.allocation/v1"): schema, id, state,
// external_id, request_id, job, priority, policy, fabric_version, gpus ["host/gpuN", ...],
// created_at, expires_at, finished_at, expected_end_at (when the Reserve's run says the
// job ends) (RFC 3339 UTC; null when not applicable).
// Pure functions; thread-safe. Every string ends with a newline.
#ifndef TOPOPLACE_CLIENT_ALLOCATION_REPORT_H_
#define TOPOPLACE_CLIENT_ALLOCATION_REPORT_H_

#include <string>

#include "topoplace/v1/placement.pb.h"

namespace topoplace::client {

std::string AllocationJson(const v1::Allocation& allocation);
// {"schema": "topoplace.allocations/v1", "allocations": [...]}.
std::string AllocationListJson(const v1::ListAllocationsResponse& list);
// {"allocation": {...}, "plan": <the plan's topoplace.plan/v1 JSON>}.
std::string ReservationJson(const v1::ReserveResponse& reservation);
std::string ExplainJson(const v1::ExplainResponse& explain);

// One row per allocation: id, state, external id, GPUs, hosts, job, expiry.
std::string AllocationTable(const v1::ListAllocationsResponse& list);
std::string AllocationTable(const v1::Allocation& allocation);
// The allocation row, then the plan's hosts and scorer breakdown as placed.
std::string ExplainTable(const v1::ExplainResponse& explain);

}  // namespace topoplace::client

#endif  // TOPOPLACE_CLIENT_ALLOCATION_REPORT_H_
