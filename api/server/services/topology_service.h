// topoplace.v1.Topology over the callback API: the served fabric snapshot, its hosts,
// GPU-to-GPU paths, and blocks/pods/rails with their free capacity from the ledger.
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_SERVICES_TOPOLOGY_SERVICE_H_
#define TOPOPLACE_API_SERVER_SERVICES_TOPOLOGY_SERVICE_H_

#include "api/server/services/service_context.h"
#include "topoplace/v1/topology.grpc.pb.h"

namespace topoplace::server {

class TopologyService final : public v1::Topology::CallbackService {
 public:
  explicit TopologyService(const ServiceContext& context);

  grpc::ServerUnaryReactor* GetFabricSummary(grpc::CallbackServerContext* ctx,
                                             const v1::GetFabricSummaryRequest* request,
                                             v1::FabricSummary* response) override;
  grpc::ServerUnaryReactor* GetHost(grpc::CallbackServerContext* ctx,
                                    const v1::GetHostRequest* request,
                                    v1::HostInfo* response) override;
  grpc::ServerUnaryReactor* GetPath(grpc::CallbackServerContext* ctx,
                                    const v1::GetPathRequest* request,
                                    v1::GetPathResponse* response) override;
  grpc::ServerUnaryReactor* ListDomains(grpc::CallbackServerContext* ctx,
                                        const v1::ListDomainsRequest* request,
                                        v1::ListDomainsResponse* response) override;
  grpc::ServerWriteReactor<v1::FabricSummary>* WatchFabric(
      grpc::CallbackServerContext* ctx, const v1::WatchFabricRequest* request) override;
  // Host reports from agents (implemented in topology_host_reports.cc).
  grpc::ServerUnaryReactor* ReportHost(grpc::CallbackServerContext* ctx,
                                       const v1::ReportHostRequest* request,
                                       v1::ReportHostResponse* response) override;
  grpc::ServerUnaryReactor* ListHostReports(grpc::CallbackServerContext* ctx,
                                            const v1::ListHostReportsRequest* request,
                                            v1::ListHostReportsResponse* response) override;

 private:
  absl::Status DoGetHost(const v1::GetHostRequest& request, v1::HostInfo& response);
  absl::Status DoGetPath(const v1::GetPathRequest& request, v1::GetPathResponse& response);
  void DoListDomains(v1::ListDomainsResponse& response);
  absl::Status DoReportHost(const Caller& caller, const v1::ReportHostRequest& request,
                            v1::ReportHostResponse& response);
  absl::Status DoListHostReports(const v1::ListHostReportsRequest& request,
                                 v1::ListHostReportsResponse& response);

  const ServiceContext& context_;
  // Rendered once: the snapshot never changes while the daemon runs.
  const v1::FabricSummary summary_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_TOPOLOGY_SERVICE_H_
