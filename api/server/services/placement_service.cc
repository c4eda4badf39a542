#include "api/server/services/placement_service.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/server/guards/request_limits.h"
#include "api/server/guards/user_limits.h"
#include "api/server/services/proto_convert.h"
#include "base/status_macros.h"
#include "scheduler/job/job_spec.h"
#include "scheduler/reserve/expected_ends.h"

namespace topoplace::server {
namespace {

// Hosts a request may name in its hosts field: more than any fabric has.
constexpr int kMaxRequestHosts = 1'000'000;

// The request's hosts field (hosts too many for the spec's hosts=) into `job`.
absl::Status AddRequestHosts(const google::protobuf::RepeatedPtrField<std::string>& hosts,
                             sched::JobSpec& job) {
  if (hosts.empty()) return absl::OkStatus();
  if (!job.hosts.empty()) {
    return absl::InvalidArgumentError(
        "hosts: give the hosts either in job_spec's hosts= or in the hosts field, not both");
  }
  if (hosts.size() > kMaxRequestHosts) {
    return absl::InvalidArgumentError(
        absl::StrCat("hosts: ", hosts.size(), " entries, at most ", kMaxRequestHosts));
  }
  job.hosts.reserve(static_cast<size_t>(hosts.size()));
  for (int i = 0; i < hosts.size(); ++i) {
    TP_RETURN_IF_ERROR(CheckHostName(absl::StrCat("hosts[", i, "]"), hosts[i]));
    job.hosts.push_back(hosts[i]);
  }
  return absl::OkStatus();
}

absl::StatusOr<sched::PlacementRequest> ParsePlacement(
    absl::string_view job_spec, absl::string_view policy,
    const google::protobuf::RepeatedPtrField<std::string>& hosts) {
  TP_RETURN_IF_ERROR(CheckText("job_spec", job_spec, kMaxJobSpecBytes, /*required=*/true));
  TP_RETURN_IF_ERROR(CheckText("policy", policy, kMaxNameBytes, /*required=*/false));
  absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(job_spec);
  if (!job.ok()) {
    return absl::Status(job.status().code(), absl::StrCat("job_spec: ", job.status().message()));
  }
  TP_RETURN_IF_ERROR(AddRequestHosts(hosts, *job));
  sched::PlacementRequest request;
  request.job = *std::move(job);
  if (!policy.empty()) request.policy = std::string(policy);
  // NCCL forwards cross-rail traffic over NVLink (PXN) by default; without it a tp=4 job
  // on a rail-plane fabric has no network path and every such Slurm or Kubernetes job
  // would be refused (as `topoplace place`, the simulator and the plugins assume).
  request.routing.rail_local = true;
  return request;
}

// Waiting jobs a request may list: more than any queue a backfill pass reads.
constexpr int kMaxWaitingJobs = 100'000;
constexpr int kMaxWaitingJobNodes = 1'000'000;

// The longest run an outlook may give: 100 years, far inside what the ledger's microsecond
// times hold.
constexpr double kMaxRunSeconds = 100.0 * 365 * 24 * 3600;

// True when the request's outlook says anything, so the daemon adds what its ledger knows.
bool OutlookInUse(const v1::QueueOutlook& given) {
  return given.waiting_nodes_size() > 0 || given.run_seconds() > 0;
}

// The request's outlook (QueueOutlook) in the engine's terms: one time per fabric host,
// the request's where it names the host, else `ledger_ends`' (ExpectedHostEnds; empty:
// 0 for every host not named). Bad entries are InvalidArgument naming them.
absl::StatusOr<sched::QueueOutlook> ParseOutlook(const v1::QueueOutlook& given,
                                                 const Fabric& fabric,
                                                 std::vector<double> ledger_ends) {
  sched::QueueOutlook out;
  if (given.waiting_nodes_size() > kMaxWaitingJobs) {
    return absl::InvalidArgumentError(
        absl::StrCat("outlook.waiting_nodes: ", given.waiting_nodes_size(), " entries, at most ",
                     kMaxWaitingJobs));
  }
  for (int i = 0; i < given.waiting_nodes_size(); ++i) {
    const int nodes = given.waiting_nodes(i);
    if (nodes < 1 || nodes > kMaxWaitingJobNodes) {
      return absl::InvalidArgumentError(absl::StrCat("outlook.waiting_nodes[", i, "] is ", nodes,
                                                     ": expected hosts in [1, ",
                                                     kMaxWaitingJobNodes, "]"));
    }
    out.waiting_nodes.push_back(nodes);
  }
  if (!(given.run_seconds() >= 0) || !(given.run_seconds() <= kMaxRunSeconds)) {
    return absl::InvalidArgumentError(absl::StrCat("outlook.run_seconds is ", given.run_seconds(),
                                                   ": expected seconds in [0, ", kMaxRunSeconds,
                                                   "] (100 years)"));
  }
  out.run_s = given.run_seconds();
  const bool ledger_knows =
      std::any_of(ledger_ends.begin(), ledger_ends.end(), [](double s) { return s > 0; });
  if (given.host_free_in_seconds().empty() && !ledger_knows) return out;
  if (ledger_knows) {
    out.host_free_in_s = std::move(ledger_ends);
  } else {
    out.host_free_in_s.assign(fabric.hosts().size(), 0.0);
  }
  for (const auto& [name, seconds] : given.host_free_in_seconds()) {
    const std::optional<HostId> host = fabric.FindHost(name);
    if (!host) {
      TP_RETURN_IF_ERROR(CheckHostName("outlook.host_free_in_seconds", name));
      return absl::InvalidArgumentError(
          absl::StrCat("outlook.host_free_in_seconds: the fabric has no host '", name, "'"));
    }
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
      return absl::InvalidArgumentError(absl::StrCat("outlook.host_free_in_seconds['", name,
                                                     "'] is ", seconds,
                                                     ": expected a finite number of seconds >= 0"));
    }
    out.host_free_in_s[*host] = seconds;
  }
  return out;
}

}  // namespace

sched::ReserverPorts PlacementService::UseCasePorts(const ServiceContext& context,
                                                    const DaemonPlacementPort& port) {
  return {.ledger = context.ledger,
          .fabric = context.fabric.get(),
          .fabric_version = context.fabric_version,
          .placement = &port,
          .live_load = context.live_load.get()};
}

absl::Status PlacementService::Refused(const absl::Status& refusal,
                                       const sched::PlacementRequest& placement) const {
  if (!absl::IsResourceExhausted(refusal)) return refusal;
  const absl::Status worded = advisor_.WithWhatWouldFree(refusal, placement);
  const sched::JobSpec& job = placement.job;
  const std::string level = job.mode == sched::ConstraintMode::kHard
                                ? std::string(sched::MaxTierName(job.max_tier))
                                : std::string("cluster");
  if (context_.on_refused) context_.on_refused(level);
  if (context_.refusals) {
    context_.refusals->Add(
        {absl::Now(), sched::FormatJobSpec(job), level, std::string(worded.message())});
  }
  return worded;
}

std::vector<double> PlacementService::LedgerEnds(const v1::QueueOutlook& given) const {
  if (!OutlookInUse(given)) return {};
  return sched::ExpectedHostEnds(*context_.ledger, absl::Now());
}

absl::Status PlacementService::DoPlace(const v1::PlaceRequest& request,
                                       v1::PlaceResponse& response) {
  TP_ASSIGN_OR_RETURN(sched::PlacementRequest placement,
                      ParsePlacement(request.job_spec(), request.policy(), request.hosts()));
  TP_ASSIGN_OR_RETURN(placement.outlook, ParseOutlook(request.outlook(), *context_.fabric,
                                                      LedgerEnds(request.outlook())));
  response.set_fabric_version(context_.fabric_version);
  if (!request.may_preempt()) {
    absl::StatusOr<sched::PlacementPlan> plan = advisor_.Place(placement);
    if (!plan.ok()) return Refused(plan.status(), placement);
    *response.mutable_plan() = PlanToProto(*context_.fabric, *plan);
    return absl::OkStatus();
  }
  TP_ASSIGN_OR_RETURN(sched::PreemptionAdvice advice,
                      advisor_.PlaceWithPreemption(std::move(placement)));
  *response.mutable_plan() = PlanToProto(*context_.fabric, advice.preemption.plan);
  response.set_preemption_domain(advice.preemption.domain);
  for (size_t i = 0; i < advice.preemption.victims.size(); ++i) {
    const sched::Victim& v = advice.preemption.victims[i];
    v1::Victim* out = response.add_victims();
    out->set_allocation_id(v.id);
    out->set_external_id(advice.external_ids[i]);
    out->set_priority(v.priority);
    out->set_reason(v.reason);
  }
  return absl::OkStatus();
}

absl::Status PlacementService::DoReserve(const Caller& caller, const v1::ReserveRequest& request,
                                         v1::ReserveResponse& response) {
  TP_ASSIGN_OR_RETURN(absl::Duration ttl, ParseTtl(request.ttl_seconds()));
  TP_RETURN_IF_ERROR(
      CheckText("request_id", request.request_id(), kMaxNameBytes, /*required=*/false));
  TP_ASSIGN_OR_RETURN(sched::PlacementRequest placement,
                      ParsePlacement(request.job_spec(), request.policy(), request.hosts()));
  TP_ASSIGN_OR_RETURN(placement.outlook, ParseOutlook(request.outlook(), *context_.fabric,
                                                      LedgerEnds(request.outlook())));
  std::vector<std::string> releasing;
  for (int i = 0; i < request.release_allocation_ids_size(); ++i) {
    TP_RETURN_IF_ERROR(CheckText(absl::StrCat("release_allocation_ids[", i, "]"),
                                 request.release_allocation_ids(i), kMaxNameBytes, true));
    releasing.push_back(request.release_allocation_ids(i));
  }
  if (!releasing.empty() && caller.is_slurm_user()) {
    return absl::PermissionDeniedError(
        "release_allocation_ids: only an admin credential may release others' allocations");
  }
  // A Slurm user's reservations are counted and made one at a time, so two at once cannot
  // both pass the limits.
  std::optional<absl::MutexLock> one_user_reserve;
  if (caller.is_slurm_user()) {
    one_user_reserve.emplace(&user_reserve_mu_);
    TP_RETURN_IF_ERROR(CheckUserReserve(context_.user_limits, caller.uid(), placement.job.priority,
                                        placement.job.world_size(), ttl, *context_.ledger));
  }
  absl::StatusOr<sched::ReserveOutcome> reserved =
      reserver_.Reserve({placement, ttl, std::string(request.request_id()), std::move(releasing)});
  if (!reserved.ok()) return Refused(reserved.status(), placement);
  sched::ReserveOutcome outcome = *std::move(reserved);
  *response.mutable_allocation() = AllocationToProto(outcome.allocation);
  if (outcome.plan) {
    *response.mutable_plan() =
        PlanToProto(*context_.fabric, *outcome.plan, std::move(outcome.plan_json));
  } else {
    response.mutable_plan()->set_json(std::move(outcome.plan_json));
  }
  response.set_replayed(outcome.replayed);
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> PlacementService::ParseTtl(int64_t ttl_seconds) const {
  if (ttl_seconds < 0 || absl::Seconds(ttl_seconds) > store::kMaxReservationTtl) {
    return absl::InvalidArgumentError(absl::StrCat("ttl_seconds: expected 0 (the default) up to ",
                                                   absl::ToInt64Seconds(store::kMaxReservationTtl),
                                                   ", got ", ttl_seconds));
  }
  return ttl_seconds == 0 ? context_.default_ttl : absl::Seconds(ttl_seconds);
}

grpc::ServerUnaryReactor* PlacementService::Place(grpc::CallbackServerContext* ctx,
                                                  const v1::PlaceRequest* request,
                                                  v1::PlaceResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoPlace(*request, *response);
  return FinishUnary(ctx, s);
}

grpc::ServerUnaryReactor* PlacementService::Reserve(grpc::CallbackServerContext* ctx,
                                                    const v1::ReserveRequest* request,
                                                    v1::ReserveResponse* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kUserWrite);
  absl::Status s = caller.status();
  if (s.ok()) s = caller->CheckMayReserveAs(request->request_id());
  if (!s.ok()) return FinishUnary(ctx, s);
  return calls_.Run(ctx, [=, this, caller = *std::move(caller)] {
    return DoReserve(caller, *request, *response);
  });
}

absl::Status PlacementService::CheckMayChange(const Caller& caller,
                                              const std::string& allocation_id) const {
  if (!caller.is_slurm_user()) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(const ledger::Allocation a, context_.ledger->Get(allocation_id));
  return caller.CheckMayChange(a.id, a.request_id, a.state == ledger::AllocationState::kReserved);
}

absl::Status PlacementService::DoRenew(const Caller& caller, const v1::RenewRequest& request,
                                       v1::Allocation& response) {
  TP_RETURN_IF_ERROR(CheckMayChange(caller, request.allocation_id()));
  TP_ASSIGN_OR_RETURN(const absl::Duration ttl, ParseTtl(request.ttl_seconds()));
  if (caller.is_slurm_user()) TP_RETURN_IF_ERROR(CheckUserTtl(context_.user_limits, ttl));
  TP_ASSIGN_OR_RETURN(const ledger::Allocation renewed,
                      context_.ledger->Renew(request.allocation_id(), ttl));
  response = AllocationToProto(renewed);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::Renew(grpc::CallbackServerContext* ctx,
                                                  const v1::RenewRequest* request,
                                                  v1::Allocation* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kUserWrite);
  absl::Status s = caller.status();
  if (s.ok()) s = CheckField("allocation_id", request->allocation_id(), kMaxNameBytes, true);
  if (!s.ok()) return FinishUnary(ctx, s);
  return calls_.Run(
      ctx, [=, this, caller = *std::move(caller)] { return DoRenew(caller, *request, *response); });
}

absl::Status PlacementService::DoCommit(const v1::CommitRequest& request,
                                        v1::Allocation& response) {
  TP_ASSIGN_OR_RETURN(const ledger::Allocation a,
                      context_.ledger->Commit(request.allocation_id(), request.external_id()));
  response = AllocationToProto(a);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::Commit(grpc::CallbackServerContext* ctx,
                                                   const v1::CommitRequest* request,
                                                   v1::Allocation* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kWrite);
  if (s.ok()) s = CheckField("allocation_id", request->allocation_id(), kMaxNameBytes, true);
  // Newlines and ANSI escapes in an external id used to reach operators' terminals raw.
  if (s.ok()) s = CheckText("external_id", request->external_id(), kMaxNameBytes, true);
  if (!s.ok()) return FinishUnary(ctx, s);
  return calls_.Run(ctx, [=, this] { return DoCommit(*request, *response); });
}

absl::Status PlacementService::DoRelease(const Caller& caller, const v1::ReleaseRequest& request,
                                         v1::Allocation& response) {
  TP_RETURN_IF_ERROR(CheckMayChange(caller, request.allocation_id()));
  TP_ASSIGN_OR_RETURN(const ledger::Allocation a,
                      context_.ledger->Release(request.allocation_id()));
  response = AllocationToProto(a);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::Release(grpc::CallbackServerContext* ctx,
                                                    const v1::ReleaseRequest* request,
                                                    v1::Allocation* response) {
  absl::StatusOr<Caller> caller = context_.authorizer.Authenticate(*ctx, Access::kUserWrite);
  absl::Status s = caller.status();
  if (s.ok()) s = CheckField("allocation_id", request->allocation_id(), kMaxNameBytes, true);
  if (!s.ok()) return FinishUnary(ctx, s);
  return calls_.Run(ctx, [=, this, caller = *std::move(caller)] {
    return DoRelease(caller, *request, *response);
  });
}

absl::Status PlacementService::DoGetAllocation(const v1::GetAllocationRequest& request,
                                               v1::Allocation& response) {
  absl::StatusOr<ledger::Allocation> a =
      absl::InvalidArgumentError("key: give allocation_id or external_id");
  if (request.has_allocation_id()) {
    TP_RETURN_IF_ERROR(CheckField("allocation_id", request.allocation_id(), kMaxNameBytes, true));
    a = context_.ledger->Get(request.allocation_id());
  } else if (request.has_external_id()) {
    TP_RETURN_IF_ERROR(CheckField("external_id", request.external_id(), kMaxNameBytes, true));
    a = context_.ledger->GetByExternalId(request.external_id());
  }
  TP_RETURN_IF_ERROR(a.status());
  response = AllocationToProto(*a);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::GetAllocation(grpc::CallbackServerContext* ctx,
                                                          const v1::GetAllocationRequest* request,
                                                          v1::Allocation* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoGetAllocation(*request, *response);
  return FinishUnary(ctx, s);
}

absl::Status PlacementService::DoListAllocations(v1::ListAllocationsResponse& response) {
  TP_ASSIGN_OR_RETURN(const std::vector<ledger::Allocation> live, context_.ledger->ListLive());
  for (const ledger::Allocation& a : live) *response.add_allocations() = AllocationToProto(a);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::ListAllocations(
    grpc::CallbackServerContext* ctx, const v1::ListAllocationsRequest* /*request*/,
    v1::ListAllocationsResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoListAllocations(*response);
  return FinishUnary(ctx, s);
}

absl::Status PlacementService::DoExplain(const v1::ExplainRequest& request,
                                         v1::ExplainResponse& response) {
  TP_RETURN_IF_ERROR(CheckField("allocation_id", request.allocation_id(), kMaxNameBytes, true));
  TP_ASSIGN_OR_RETURN(const ledger::Allocation a, context_.ledger->Get(request.allocation_id()));
  *response.mutable_allocation() = AllocationToProto(a);
  response.set_plan_json(a.plan_json);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::Explain(grpc::CallbackServerContext* ctx,
                                                    const v1::ExplainRequest* request,
                                                    v1::ExplainResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);
  if (s.ok()) s = DoExplain(*request, *response);
  return FinishUnary(ctx, s);
}

// At most this many waiting jobs per Defrag: each is a placement and a preemption search.
constexpr int kMaxDefragJobs = 64;

absl::Status PlacementService::DoDefrag(const v1::DefragRequest& request,
                                        v1::DefragResponse& response) {
  if (request.waiting_job_specs().empty() || request.waiting_job_specs_size() > kMaxDefragJobs) {
    return absl::InvalidArgumentError(absl::StrCat("waiting_job_specs: give 1 to ", kMaxDefragJobs,
                                                   " job specs, got ",
                                                   request.waiting_job_specs_size()));
  }
  if (request.restart_cost_seconds() < 0 || request.restart_cost_seconds() > 86400) {
    return absl::InvalidArgumentError(absl::StrCat(
        "restart_cost_seconds: expected 0 to 86400, got ", request.restart_cost_seconds()));
  }
  std::vector<sched::JobSpec> waiting;
  for (int i = 0; i < request.waiting_job_specs_size(); ++i) {
    const std::string field = absl::StrCat("waiting_job_specs[", i, "]");
    TP_RETURN_IF_ERROR(CheckText(field, request.waiting_job_specs(i), kMaxJobSpecBytes, true));
    absl::StatusOr<sched::JobSpec> job = sched::ParseJobSpec(request.waiting_job_specs(i));
    if (!job.ok())
      return absl::InvalidArgumentError(absl::StrCat(field, ": ", job.status().message()));
    waiting.push_back(*std::move(job));
  }
  sched::DefragOptions options;
  if (request.restart_cost_seconds() > 0) {
    options.restart_cost = absl::Seconds(request.restart_cost_seconds());
  }
  TP_ASSIGN_OR_RETURN(sched::DefragAdvice advice, advisor_.Defrag(waiting, options));
  const sched::DefragPlan& plan = advice.defrag;
  for (size_t i = 0; i < plan.moves.size(); ++i) {
    const sched::Move& m = plan.moves[i];
    v1::DefragMove* out = response.add_moves();
    out->set_allocation_id(m.id);
    out->set_external_id(advice.external_ids[i]);
    out->set_gpus(m.gpus);
    out->set_for_job(m.for_job);
    out->set_domain(m.domain);
    for (const std::string& h : m.to_hosts) out->add_to_hosts(h);
    out->set_gpu_hours(m.gpu_hours);
  }
  for (const std::string& f : plan.freed) response.add_freed(f);
  for (const std::string& n : plan.notes) response.add_notes(n);
  response.set_gpu_hours(plan.gpu_hours);
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* PlacementService::Defrag(grpc::CallbackServerContext* ctx,
                                                   const v1::DefragRequest* request,
                                                   v1::DefragResponse* response) {
  absl::Status s = context_.authorizer.Check(*ctx, Access::kRead);  // advice: changes nothing
  if (s.ok()) s = DoDefrag(*request, *response);
  return FinishUnary(ctx, s);
}

}  // namespace topoplace::server
