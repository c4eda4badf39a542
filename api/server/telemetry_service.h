// topoplace.v1.Telemetry over the callback API. Reports are validated and stored durably;
// GetLinkHealth answers from the fabric's declared link states plus how many stored
// reports name each end. Deriving health from the reports is the telemetry issue's work.
// Thread-safe.
#ifndef TOPOPLACE_API_SERVER_TELEMETRY_SERVICE_H_
#define TOPOPLACE_API_SERVER_TELEMETRY_SERVICE_H_

#include "api/server/service_context.h"
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

 private:
  absl::Status DoGetLinkHealth(const v1::GetLinkHealthRequest& request,
                               v1::GetLinkHealthResponse& response);
  const ServiceContext& context_;
};

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_TELEMETRY_SERVICE_H_
