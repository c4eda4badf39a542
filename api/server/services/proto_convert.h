// Conversions from the engine's and the ledger's C++ types to the v1 protobuf messages.
// The plan and fabric summary messages also carry the offline CLI's exact JSON and table
// text, rendered by the same functions the CLI uses, so remote output matches local.
// Pure functions; thread-safe.
#ifndef TOPOPLACE_API_SERVER_SERVICES_PROTO_CONVERT_H_
#define TOPOPLACE_API_SERVER_SERVICES_PROTO_CONVERT_H_

#include <cstdint>
#include <string>

#include "scheduler/ledger/allocation.h"
#include "scheduler/placement/plan.h"
#include "topology/model/fabric.h"
#include "topoplace/v1/placement.pb.h"
#include "topoplace/v1/topology.pb.h"

namespace topoplace::server {

// `fabric` must be the fabric the plan was made on.
v1::PlacementPlan PlanToProto(const Fabric& fabric, const sched::PlacementPlan& plan);
// The same with the plan's JSON already made (as stored with an allocation).
v1::PlacementPlan PlanToProto(const Fabric& fabric, const sched::PlacementPlan& plan,
                              std::string json);
v1::Allocation AllocationToProto(const ledger::Allocation& allocation);
// `version` is the store's snapshot version.
v1::FabricSummary SummaryToProto(const Fabric& fabric, uint64_t version);
v1::Tier TierToProto(Tier tier);

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_PROTO_CONVERT_H_
