// TopologyService::ReportHost and ListHostReports: agents' host reports, validated and
// kept durably (latest per host) in the HostReportStore. Kept apart from
// topology_service.cc, which serves the fabric snapshot.
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/server/guards/host_report_checks.h"
#include "api/server/guards/request_limits.h"
#include "api/server/services/topology_service.h"
#include "base/status_macros.h"
#include "store/ports/host_report_store.h"
#include "telemetry/monitor/health_monitor.h"
#include "topology/discovery/agent_report.h"

namespace topoplace::server {
namespace {

// ListHostReports pages: a page also ends once its reports pass 16 MiB. A stored report
// is compact JSON of at most about kMaxHostReportBytes, so a page stays well under the
// client's 64 MiB receive limit.
constexpr int kMaxHostReportPage = 1000;
constexpr size_t kHostReportPageBytes = size_t{16} << 20;

}  // namespace

absl::Status TopologyService::DoReportHost(const Caller& caller,
                                           const v1::ReportHostRequest& request,
                                           v1::ReportHostResponse& response) {
  TP_ASSIGN_OR_RETURN(const CheckedHostReport checked,
                      ParseCheckedHostReport(request.report_json()));
  const discovery::AgentReport& report = checked.report;
  TP_RETURN_IF_ERROR(caller.CheckSpeaksFor("report_json: field host", report.host));
  // A credential bound to the host vouches for a host the fabric does not have yet (the
  // operator issued it); anyone else may add hosts only while discovery is on.
  if (!context_.fabric->FindHost(report.host).has_value() && !caller.IsHost(report.host) &&
      !context_.accept_unknown_hosts) {
    return absl::NotFoundError(absl::StrCat(
        "report_json: field host: '", report.host, "' is not a host of the served fabric '",
        context_.fabric->name(), "'; set accept_unknown_hosts = true while discovering new hosts"));
  }
  if (context_.host_reports == nullptr) {
    return absl::FailedPreconditionError("this daemon keeps no host reports");
  }
  TP_RETURN_IF_ERROR(context_.ledger->MayWrite());  // a follower names the leader
  if (context_.host_report_budget != nullptr) {
    TP_RETURN_IF_ERROR(
        context_.host_report_budget->Charge(report.host, checked.compact_json.size(), absl::Now()));
  }
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  TP_ASSIGN_OR_RETURN(const bool replaced,
                      context_.host_reports->Put(report.host, checked.compact_json, now_ms));
  response.set_host(report.host);
  response.set_received_unix_ms(now_ms);
  response.set_replaced(replaced);
  if (context_.health != nullptr) context_.health->ObserveNeighbors(report, absl::Now());
  return absl::OkStatus();
}

absl::Status TopologyService::DoListHostReports(const v1::ListHostReportsRequest& request,
                                                v1::ListHostReportsResponse& response) {
  if (request.page_size() < 0 || request.page_size() > kMaxHostReportPage) {
    return absl::InvalidArgumentError(absl::StrCat("page_size: expected 0 (everything) to ",
                                                   kMaxHostReportPage, ", got ",
                                                   request.page_size()));
  }
  if (context_.host_reports == nullptr) return absl::OkStatus();
  // page_size 0: the unpaged answer older clients expect (they ignore next_page_token).
  const bool paged = request.page_size() > 0;
  TP_ASSIGN_OR_RETURN(
      const store::HostReportPage page,
      context_.host_reports->List(
          request.page_token(), paged ? request.page_size() : std::numeric_limits<int>::max(),
          paged ? kHostReportPageBytes : std::numeric_limits<size_t>::max()));
  if (page.more) response.set_next_page_token(page.reports.back().host);
  for (const store::StoredHostReport& s : page.reports) {
    v1::HostReport* out = response.add_reports();
    out->set_host(s.host);
    out->set_report_json(s.report_json);
    out->set_received_unix_ms(s.received_unix_ms);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TopologyService::ReportHost(grpc::CallbackServerContext* ctx,
                                                      const v1::ReportHostRequest* request,
                                                      v1::ReportHostResponse* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kReport);
  absl::Status s = caller.ok() ? DoReportHost(*caller, *request, *response) : caller.status();
  return FinishUnary(ctx, s);
}

grpc::ServerUnaryReactor* TopologyService::ListHostReports(
    grpc::CallbackServerContext* ctx, const v1::ListHostReportsRequest* request,
    v1::ListHostReportsResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoListHostReports(*request, *response);
  return FinishUnary(ctx, s);
}

}  // namespace topoplace::server
