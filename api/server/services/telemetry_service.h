// topoplace.v1.Telemetry over the callback API. Reports are validated (field limits, then
// against the fabric by the HealthMonitor: unknown endpoints and absurd values are
// rejected whole and change nothing), fed to the link health model and stored durably.
// GetLinkHealth, GetJobPath and GetAffectedAllocations answer from the model's current
// verdicts. Thread-safe.
#ifndef TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_SERVICE_H_
#define TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_SERVICE_H_

#include "api/server/services/service_context.h"
#include "topoplace/v1/telemetry.grpc.pb.h"

namespace topoplace::server {

class TelemetryService final : public v1::Telemetry::CallbackService {
 public:
  explicit TelemetryService(const ServiceContext& context) : context_(context) {}

  grpc::ServerUnaryReactor* ReportProbeResults(grpc::CallbackServerContext* ctx,
                                               const v1::ReportProbeResultsRequest* request,
                                               v1::ReportResponse* response) override;
  grpc::ServerUnaryReactor* ReportPortCounters(grpc::CallbackServerContext* ctx,
                                               const v1::ReportPortCountersRequest* request,
                                               v1::ReportResponse* response) override;
  grpc::ServerUnaryReactor* GetLinkHealth(grpc::CallbackServerContext* ctx,
                                          const v1::GetLinkHealthRequest* request,
                                          v1::GetLinkHealthResponse* response) override;
  grpc::ServerUnaryReactor* GetJobPath(grpc::CallbackServerContext* ctx,
                                       const v1::GetJobPathRequest* request,
                                       v1::GetJobPathResponse* response) override;
  grpc::ServerUnaryReactor* GetAffectedAllocations(
      grpc::CallbackServerContext* ctx, const v1::GetAffectedAllocationsRequest* request,
      v1::GetAffectedAllocationsResponse* response) override;

 private:
  // Unavailable naming the leader on a replica that does not lead; then takes one report
  // from `reporter`'s telemetry budget (report_budget.h).
  absl::Status AdmitReport(absl::string_view reporter, size_t bytes, absl::Time now);
  absl::Status DoReportProbes(const Caller& caller, const v1::ReportProbeResultsRequest& request,
                              v1::ReportResponse& response);
  absl::Status DoReportCounters(const Caller& caller, const v1::ReportPortCountersRequest& request,
                                v1::ReportResponse& response);
  absl::Status DoGetLinkHealth(const v1::GetLinkHealthRequest& request,
                               v1::GetLinkHealthResponse& response);
  absl::Status DoGetJobPath(const v1::GetJobPathRequest& request, v1::GetJobPathResponse& response);
  absl::Status DoGetAffected(const v1::GetAffectedAllocationsRequest& request,
                             v1::GetAffectedAllocationsResponse& response);
  const ServiceContext& context_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_SERVICES_TELEMETRY_SERVICE_H_
