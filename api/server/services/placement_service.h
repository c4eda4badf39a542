// topoplace.v1.Placement over the callback API: Place (dry run on the ledger's current
// occupancy), Reserve, Commit, Release, Get/List allocations, Explain, Defrag.
// Reserve is the scheduler's use case (scheduler/reserve/reserver.h: replay by request_id,
// load, placement, the ledger write and its retries); the handler checks and converts.
// Every RPC has one shape, as in the other services: the handler authorizes (and checks
// the fields a blocking call needs before its thread), then DoX checks the request,
// converts it, makes one use-case or ledger call and converts the answer back; calls that
// change the ledger run DoX on a thread of their own (blocking_calls.h).
// Thread-safe: RPCs run concurrently on gRPC's threads; those that change the ledger run on
// threads of their own (blocking_calls.h), so they reach the ledger together.
#ifndef TOPOPLACE_API_SERVER_SERVICES_PLACEMENT_SERVICE_H_
#define TOPOPLACE_API_SERVER_SERVICES_PLACEMENT_SERVICE_H_

#include <vector>

#include "absl/synchronization/mutex.h"
#include "api/server/services/blocking_calls.h"
#include "api/server/services/daemon_placement_port.h"
#include "api/server/services/service_context.h"
#include "scheduler/reserve/advisor.h"
#include "scheduler/reserve/reserver.h"
#include "topoplace/v1/placement.grpc.pb.h"

namespace topoplace::server {

class PlacementService final : public v1::Placement::CallbackService {
 public:
  explicit PlacementService(const ServiceContext& context)
      : context_(context),
        port_(context),
        reserver_(UseCasePorts(context, port_)),
        advisor_(UseCasePorts(context, port_)) {}

  grpc::ServerUnaryReactor* Place(grpc::CallbackServerContext* ctx, const v1::PlaceRequest* request,
                                  v1::PlaceResponse* response) override;
  grpc::ServerUnaryReactor* Reserve(grpc::CallbackServerContext* ctx,
                                    const v1::ReserveRequest* request,
                                    v1::ReserveResponse* response) override;
  grpc::ServerUnaryReactor* Renew(grpc::CallbackServerContext* ctx, const v1::RenewRequest* request,
                                  v1::Allocation* response) override;
  grpc::ServerUnaryReactor* Commit(grpc::CallbackServerContext* ctx,
                                   const v1::CommitRequest* request,
                                   v1::Allocation* response) override;
  grpc::ServerUnaryReactor* Release(grpc::CallbackServerContext* ctx,
                                    const v1::ReleaseRequest* request,
                                    v1::Allocation* response) override;
  grpc::ServerUnaryReactor* GetAllocation(grpc::CallbackServerContext* ctx,
                                          const v1::GetAllocationRequest* request,
                                          v1::Allocation* response) override;
  grpc::ServerUnaryReactor* ListAllocations(grpc::CallbackServerContext* ctx,
                                            const v1::ListAllocationsRequest* request,
                                            v1::ListAllocationsResponse* response) override;
  grpc::ServerUnaryReactor* Explain(grpc::CallbackServerContext* ctx,
                                    const v1::ExplainRequest* request,
                                    v1::ExplainResponse* response) override;
  grpc::ServerUnaryReactor* Defrag(grpc::CallbackServerContext* ctx,
                                   const v1::DefragRequest* request,
                                   v1::DefragResponse* response) override;

 private:
  // `refusal` of Place or Reserve for `placement`; when it is for want of room, worded
  // with what would free room, counted (ServiceContext::on_refused) and kept
  // (ServiceContext::refusals).
  absl::Status Refused(const absl::Status& refusal, const sched::PlacementRequest& placement) const;
  // What the ledger knows of each host's end (sched::ExpectedHostEnds) when the request's
  // outlook is in use (it sends waiting_nodes or run_seconds); empty otherwise.
  std::vector<double> LedgerEnds(const v1::QueueOutlook& given) const;
  absl::Status DoPlace(const v1::PlaceRequest& request, v1::PlaceResponse& response);
  // For a Slurm user (MUNGE), OK only if `allocation_id` is a reservation of its own.
  absl::Status CheckMayChange(const Caller& caller, const std::string& allocation_id) const;
  absl::Status DoDefrag(const v1::DefragRequest& request, v1::DefragResponse& response);
  absl::Status DoRenew(const Caller& caller, const v1::RenewRequest& request,
                       v1::Allocation& response);
  absl::Status DoCommit(const v1::CommitRequest& request, v1::Allocation& response);
  absl::Status DoRelease(const Caller& caller, const v1::ReleaseRequest& request,
                         v1::Allocation& response);
  absl::Status DoGetAllocation(const v1::GetAllocationRequest& request, v1::Allocation& response);
  absl::Status DoListAllocations(v1::ListAllocationsResponse& response);
  absl::Status DoExplain(const v1::ExplainRequest& request, v1::ExplainResponse& response);
  // Reserve for `caller`: a Slurm user's within context_.user_limits (user_limits.h).
  absl::Status DoReserve(const Caller& caller, const v1::ReserveRequest& request,
                         v1::ReserveResponse& response);
  // The use cases' view of the daemon (Reserve and the dry runs): its ledger and fabric,
  // and `port` (current engine, uplink load, restart exclusions).
  static sched::ReserverPorts UseCasePorts(const ServiceContext& context,
                                           const DaemonPlacementPort& port);
  // ttl_seconds from a request: 0 is the daemon's default; INVALID_ARGUMENT outside
  // [0, kMaxReservationTtl].
  absl::StatusOr<absl::Duration> ParseTtl(int64_t ttl_seconds) const;

  const ServiceContext& context_;
  const DaemonPlacementPort port_;
  const sched::Reserver reserver_;
  const sched::Advisor advisor_;  // Place, Place with may_preempt, Defrag
  BlockingCalls calls_;           // Reserve, Renew, Commit, Release
  absl::Mutex user_reserve_mu_;   // Slurm users' Reserves, one at a time
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_PLACEMENT_SERVICE_H_
