#include "api/server/services/telemetry_service.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "api/server/guards/request_limits.h"
#include "api/server/services/proto_convert.h"
#include "api/server/services/telemetry_path_view.h"
#include "base/status_macros.h"
#include "telemetry/health/fabric_health_model.h"
#include "telemetry/health/job_path.h"
#include "telemetry/monitor/health_monitor.h"

namespace topoplace::server {
namespace {

absl::Status CheckBatchSize(absl::string_view field, int size) {
  if (size > kMaxReportEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most ", kMaxReportEntries, " entries per call, got ", size));
  }
  return absl::OkStatus();
}

// How far ahead of the daemon's clock a reading may be stamped: NTP keeps hosts within
// milliseconds; a minute allows for a host whose clock is being corrected.
constexpr absl::Duration kMaxClockSkew = absl::Seconds(60);

// A reading stamped in the future would count as fresh until that time comes (a switch
// pinned as hot for as long as the stamp says): refused, naming the field.
absl::Status CheckMeasuredAt(absl::string_view field, int64_t unix_ms, absl::Time now) {
  if (unix_ms == 0) return absl::OkStatus();  // stamped with the time received
  const absl::Time at = absl::FromUnixMillis(unix_ms);
  if (at <= now + kMaxClockSkew) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", unix_ms, " is ",
                   absl::FormatDuration(absl::Seconds(absl::ToInt64Seconds(at - now))),
                   " ahead of this daemon's clock (at most ", absl::FormatDuration(kMaxClockSkew),
                   "); is the reporter's clock set?"));
}

absl::Status CheckProbes(const v1::ReportProbeResultsRequest& request, absl::Time now) {
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
    TP_RETURN_IF_ERROR(CheckMeasuredAt(at + "measured_unix_ms", r.measured_unix_ms(), now));
  }
  return absl::OkStatus();
}

absl::Status CheckCounters(const v1::ReportPortCountersRequest& request, absl::Time now) {
  TP_RETURN_IF_ERROR(CheckField("reporter", request.reporter(), kMaxNameBytes, true));
  TP_RETURN_IF_ERROR(CheckBatchSize("counters", request.counters_size()));
  for (int i = 0; i < request.counters_size(); ++i) {
    TP_RETURN_IF_ERROR(CheckField(absl::StrCat("counters[", i, "].endpoint"),
                                  request.counters(i).endpoint(), kMaxNameBytes, true));
    TP_RETURN_IF_ERROR(CheckField(absl::StrCat("counters[", i, "].peer"),
                                  request.counters(i).peer(), kMaxNameBytes, false));
    TP_RETURN_IF_ERROR(CheckMeasuredAt(absl::StrCat("counters[", i, "].measured_unix_ms"),
                                       request.counters(i).measured_unix_ms(), now));
  }
  return absl::OkStatus();
}

// The host part of a "host/nic" endpoint; a switch name is returned whole.
absl::string_view EndpointHost(absl::string_view endpoint) {
  return endpoint.substr(0, endpoint.find('/'));
}

// A host credential reports only what its own host measured, about its own ports.
absl::Status CheckProbesSpeakFor(const Caller& caller,
                                 const v1::ReportProbeResultsRequest& request) {
  TP_RETURN_IF_ERROR(caller.CheckSpeaksFor("reporter", request.reporter()));
  for (int i = 0; i < request.results_size(); ++i) {
    TP_RETURN_IF_ERROR(caller.CheckSpeaksFor(absl::StrCat("results[", i, "].source"),
                                             EndpointHost(request.results(i).source())));
  }
  return absl::OkStatus();
}

absl::Status CheckCountersSpeakFor(const Caller& caller,
                                   const v1::ReportPortCountersRequest& request) {
  TP_RETURN_IF_ERROR(caller.CheckSpeaksFor("reporter", request.reporter()));
  for (int i = 0; i < request.counters_size(); ++i) {
    TP_RETURN_IF_ERROR(caller.CheckSpeaksFor(absl::StrCat("counters[", i, "].endpoint"),
                                             EndpointHost(request.counters(i).endpoint())));
  }
  return absl::OkStatus();
}

// The reports as the health loop takes them.
std::vector<telemetry::ProbeSample> ProbeSamples(const v1::ReportProbeResultsRequest& request) {
  std::vector<telemetry::ProbeSample> batch;
  batch.reserve(static_cast<size_t>(request.results_size()));
  for (const v1::ProbeResult& r : request.results()) {
    batch.push_back(
        {r.source(), r.target(), r.latency_us(), r.bandwidth_gbps(), r.reachable(), r.transport()});
  }
  return batch;
}

std::vector<telemetry::CounterSample> CounterSamples(const v1::ReportPortCountersRequest& request) {
  std::vector<telemetry::CounterSample> batch;
  batch.reserve(static_cast<size_t>(request.counters_size()));
  for (const v1::PortCounters& c : request.counters()) {
    batch.push_back({c.endpoint(), c.rx_errors(), c.tx_discards(), c.link_downs()});
  }
  return batch;
}

// Reports without a measurement time get the time the daemon received them.
template <typename Request, typename Entry>
Request Stamped(const Request& request, Entry* (Request::*mutable_entry)(int), int size,
                int64_t now_ms) {
  Request copy = request;
  for (int i = 0; i < size; ++i) {
    Entry* e = (copy.*mutable_entry)(i);
    if (e->measured_unix_ms() == 0) e->set_measured_unix_ms(now_ms);
  }
  return copy;
}

}  // namespace

absl::Status TelemetryService::AdmitReport(absl::string_view reporter, size_t bytes,
                                           absl::Time now) {
  // Replicas on etcd: link health is judged where placements are made. A follower names
  // the leader (Unavailable), and the agent's client moves on to it (hardening finding 6:
  // reports that reached one follower only left the leader placing on links it knew
  // nothing of).
  TP_RETURN_IF_ERROR(context_.ledger->MayWrite());
  if (context_.telemetry_budget == nullptr) return absl::OkStatus();
  return context_.telemetry_budget->Charge(reporter, bytes, now);
}

absl::Status TelemetryService::DoReportProbes(const Caller& caller,
                                              const v1::ReportProbeResultsRequest& request,
                                              v1::ReportResponse& response) {
  const absl::Time now = absl::Now();
  TP_RETURN_IF_ERROR(CheckProbes(request, now));
  TP_RETURN_IF_ERROR(CheckProbesSpeakFor(caller, request));
  TP_RETURN_IF_ERROR(AdmitReport(request.reporter(), request.ByteSizeLong(), now));
  if (context_.health != nullptr) {
    TP_RETURN_IF_ERROR(context_.health->ObserveProbes(ProbeSamples(request), now));
  }
  TP_ASSIGN_OR_RETURN(int n, context_.telemetry->AddProbeResults(
                                 Stamped(request, &v1::ReportProbeResultsRequest::mutable_results,
                                         request.results_size(), absl::ToUnixMillis(now))));
  response.set_accepted(n);
  return absl::OkStatus();
}

absl::Status TelemetryService::DoReportCounters(const Caller& caller,
                                                const v1::ReportPortCountersRequest& request,
                                                v1::ReportResponse& response) {
  const absl::Time now = absl::Now();
  TP_RETURN_IF_ERROR(CheckCounters(request, now));
  TP_RETURN_IF_ERROR(CheckCountersSpeakFor(caller, request));
  TP_RETURN_IF_ERROR(AdmitReport(request.reporter(), request.ByteSizeLong(), now));
  if (context_.measured_load) TP_RETURN_IF_ERROR(context_.measured_load->Check(request));
  if (context_.health != nullptr) {
    TP_RETURN_IF_ERROR(context_.health->ObserveCounters(CounterSamples(request), now));
  }
  if (context_.measured_load) context_.measured_load->Observe(request, now);
  TP_ASSIGN_OR_RETURN(int n, context_.telemetry->AddPortCounters(
                                 Stamped(request, &v1::ReportPortCountersRequest::mutable_counters,
                                         request.counters_size(), absl::ToUnixMillis(now))));
  response.set_accepted(n);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TelemetryService::ReportProbeResults(
    grpc::CallbackServerContext* ctx, const v1::ReportProbeResultsRequest* request,
    v1::ReportResponse* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kReport);
  absl::Status s = caller.ok() ? DoReportProbes(*caller, *request, *response) : caller.status();
  return FinishUnary(ctx, s);
}

grpc::ServerUnaryReactor* TelemetryService::ReportPortCounters(
    grpc::CallbackServerContext* ctx, const v1::ReportPortCountersRequest* request,
    v1::ReportResponse* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kReport);
  absl::Status s = caller.ok() ? DoReportCounters(*caller, *request, *response) : caller.status();
  return FinishUnary(ctx, s);
}

absl::Status TelemetryService::DoGetLinkHealth(const v1::GetLinkHealthRequest& request,
                                               v1::GetLinkHealthResponse& response) {
  TP_RETURN_IF_ERROR(CheckField("endpoint", request.endpoint(), kMaxNameBytes, false));
  TP_ASSIGN_OR_RETURN(auto counts, context_.telemetry->ReportCounts());
  const Fabric& fabric = *context_.fabric;
  for (LinkId l = 0; l < static_cast<LinkId>(fabric.links().size()); ++l) {
    const Link& link = fabric.links()[l];
    const std::string a = fabric.EndpointName(link.a);
    const std::string b = fabric.EndpointName(link.b);
    if (!request.endpoint().empty() && request.endpoint() != a && request.endpoint() != b) {
      continue;
    }
    v1::LinkHealth* out = response.add_links();
    FillLinkHealth(fabric, l, context_.health ? context_.health->Link(l) : LinkHealthView{}, *out);
    auto count = [&](const std::string& name) {
      auto it = counts.find(name);
      return it == counts.end() ? int64_t{0} : it->second;
    };
    out->set_reports(count(a) + count(b));
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

absl::Status TelemetryService::DoGetJobPath(const v1::GetJobPathRequest& request,
                                            v1::GetJobPathResponse& response) {
  if (context_.health == nullptr) return absl::UnavailableError("link health is not running");
  absl::StatusOr<ledger::Allocation> allocation =
      absl::InvalidArgumentError("key: give allocation_id or external_id");
  if (request.has_allocation_id()) {
    TP_RETURN_IF_ERROR(CheckField("allocation_id", request.allocation_id(), kMaxNameBytes, true));
    allocation = context_.ledger->Get(request.allocation_id());
  } else if (request.has_external_id()) {
    TP_RETURN_IF_ERROR(CheckField("external_id", request.external_id(), kMaxNameBytes, true));
    allocation = context_.ledger->GetByExternalId(request.external_id());
  }
  TP_RETURN_IF_ERROR(allocation.status());
  const Fabric& fabric = *context_.fabric;
  const telemetry::JobPath path =
      telemetry::PathOfGpus(fabric, GpusOfAllocation(fabric, *allocation));
  *response.mutable_allocation() = AllocationToProto(*allocation);
  for (LinkId l : path.links) {
    FillLinkHealth(fabric, l, context_.health->Link(l), *response.add_links());
  }
  for (SwitchId s : path.switches) {
    *response.add_switches() = SwitchHealthOf(fabric, s, *context_.health);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TelemetryService::GetJobPath(grpc::CallbackServerContext* ctx,
                                                       const v1::GetJobPathRequest* request,
                                                       v1::GetJobPathResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetJobPath(*request, *response);
  return FinishUnary(ctx, s);
}

absl::Status TelemetryService::DoGetAffected(const v1::GetAffectedAllocationsRequest& request,
                                             v1::GetAffectedAllocationsResponse& response) {
  if (context_.health == nullptr) return absl::UnavailableError("link health is not running");
  const Fabric& fabric = *context_.fabric;
  LinkId link = -1;
  SwitchId sw = -1;
  if (request.has_link()) {
    TP_RETURN_IF_ERROR(CheckField("link", request.link(), kMaxNameBytes, true));
    TP_ASSIGN_OR_RETURN(link, telemetry::FindLink(fabric, request.link()));
    FillLinkHealth(fabric, link, context_.health->Link(link), *response.mutable_link());
  } else if (request.has_switch_name()) {
    TP_RETURN_IF_ERROR(CheckField("switch_name", request.switch_name(), kMaxNameBytes, true));
    std::optional<SwitchId> found = fabric.FindSwitch(request.switch_name());
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat("switch_name: no switch '", request.switch_name(), "' in the fabric"));
    }
    sw = *found;
    *response.mutable_switch_health() = SwitchHealthOf(fabric, sw, *context_.health);
  } else {
    return absl::InvalidArgumentError("target: give link or switch_name");
  }
  TP_ASSIGN_OR_RETURN(std::vector<ledger::Allocation> live, context_.ledger->ListLive());
  for (const ledger::Allocation& a : live) {
    const telemetry::JobPath path = telemetry::PathOfGpus(fabric, GpusOfAllocation(fabric, a));
    if ((link >= 0 && path.TouchesLink(link)) || (sw >= 0 && path.TouchesSwitch(sw))) {
      *response.add_allocations() = AllocationToProto(a);
    }
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* TelemetryService::GetAffectedAllocations(
    grpc::CallbackServerContext* ctx, const v1::GetAffectedAllocationsRequest* request,
    v1::GetAffectedAllocationsResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetAffected(*request, *response);
  return FinishUnary(ctx, s);
}

}  // namespace topoplace::server
