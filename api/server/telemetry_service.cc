#include "api/server/telemetry_service.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "api/server/request_limits.h"
#include "topology/base/status_macros.h"

namespace topoplace::server {
namespace {

absl::Status CheckBatchSize(absl::string_view field, int size) {
  if (size > kMaxReportEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most ", kMaxReportEntries, " entries per call, got ", size));
  }
  return absl::OkStatus();
}

absl::Status CheckProbes(const v1::ReportProbeResultsRequest& request) {
  TP_RETURN_IF_ERROR(CheckField("reporter", request.reporter(), kMaxNameBytes, true));
  TP_RETURN_IF_ERROR(CheckBatchSize("results", request.results_size()));
  for (int i = 0; i < request.results_size(); ++i) {
    const v1::ProbeResult& r = request.results(i);
    const std::string at = absl::StrCat("results[", i, "].");
    TP_RETURN_IF_ERROR(CheckField(at + "source", r.source(), kMaxNameBytes, true));
    TP_RETURN_IF_ERROR(CheckField(at + "target", r.target(), kMaxNameBytes, true));
    if (!(r.latency_us() >= 0) || !(r.bandwidth_gbps() >= 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "latency_us/bandwidth_gbps: expected values >= 0"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCounters(const v1::ReportPortCountersRequest& request) {
  TP_RETURN_IF_ERROR(CheckField("reporter", request.reporter(), kMaxNameBytes, true));
  TP_RETURN_IF_ERROR(CheckBatchSize("counters", request.counters_size()));
  for (int i = 0; i < request.counters_size(); ++i) {
    TP_RETURN_IF_ERROR(CheckField(absl::StrCat("counters[", i, "].endpoint"),
                                  request.counters(i).endpoint(), kMaxNameBytes, true));
  }
  return absl::OkStatus();
}

}  // namespace

grpc::ServerUnaryReactor* TelemetryService::ReportProbeResults(
    grpc::CallbackServerContext* ctx, const v1::ReportProbeResultsRequest* request,
    v1::ReportResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kWrite);
  if (s.ok()) s = CheckProbes(*request);
  if (s.ok()) {
    absl::StatusOr<int> n = context_.telemetry->AddProbeResults(*request);
    if (n.ok()) response->set_accepted(*n);
    s = n.status();
  }
  return FinishUnary(ctx, s);
}

grpc::ServerUnaryReactor* TelemetryService::ReportPortCounters(
    grpc::CallbackServerContext* ctx, const v1::ReportPortCountersRequest* request,
    v1::ReportResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kWrite);
  if (s.ok()) s = CheckCounters(*request);
  if (s.ok()) {
    absl::StatusOr<int> n = context_.telemetry->AddPortCounters(*request);
    if (n.ok()) response->set_accepted(*n);
    s = n.status();
  }
  return FinishUnary(ctx, s);
}

absl::Status TelemetryService::DoGetLinkHealth(const v1::GetLinkHealthRequest& request,
                                               v1::GetLinkHealthResponse& response) {
  TP_RETURN_IF_ERROR(CheckField("endpoint", request.endpoint(), kMaxNameBytes, false));
  TP_ASSIGN_OR_RETURN(auto counts, context_.telemetry->ReportCounts());
  const Fabric& fabric = *context_.fabric;
  for (const Link& link : fabric.links()) {
    std::string a = fabric.EndpointName(link.a);
    std::string b = fabric.EndpointName(link.b);
    if (!request.endpoint().empty() && request.endpoint() != a && request.endpoint() != b) {
      continue;
    }
    v1::LinkHealth* out = response.add_links();
    out->set_state(std::string(LinkStateName(link.state)));
    auto count = [&](const std::string& name) {
      auto it = counts.find(name);
      return it == counts.end() ? int64_t{0} : it->second;
    };
    out->set_reports(count(a) + count(b));
    out->set_a(std::move(a));
    out->set_b(std::move(b));
  }
  if (!request.endpoint().empty() && response.links_size() == 0) {
    return absl::NotFoundError(
        absl::StrCat("endpoint: no link touches '", request.endpoint(), "'"));
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TelemetryService::GetLinkHealth(grpc::CallbackServerContext* ctx,
                                                          const v1::GetLinkHealthRequest* request,
                                                          v1::GetLinkHealthResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetLinkHealth(*request, *response);
  return FinishUnary(ctx, s);
}

}  // namespace topoplace::server
