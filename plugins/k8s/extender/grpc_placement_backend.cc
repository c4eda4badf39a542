#include "plugins/k8s/extender/grpc_placement_backend.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "client/rpc_status.h"

namespace topoplace::k8s {
namespace {

namespace v1 = ::topoplace::v1;

absl::Time ExpiresOf(const v1::Allocation& allocation) {
  if (allocation.state() != v1::ALLOCATION_STATE_RESERVED || allocation.expires_unix_ms() == 0) {
    return absl::InfiniteFuture();
  }
  return absl::FromUnixMillis(allocation.expires_unix_ms());
}

// The `hosts` array of a plan in the scheduler's JSON (schema topoplace.plan/v1).
absl::StatusOr<std::vector<std::string>> PlanHosts(const std::string& plan_json) {
  nlohmann::json plan = nlohmann::json::parse(plan_json, nullptr, /*allow_exceptions=*/false);
  if (plan.is_discarded() || !plan.is_object() || !plan.contains("hosts") ||
      !plan["hosts"].is_array()) {
    return absl::InternalError("topoplaced returned a plan without a hosts array");
  }
  std::vector<std::string> hosts;
  for (const nlohmann::json& host : plan["hosts"]) {
    if (!host.is_string()) return absl::InternalError("plan hosts must be strings");
    hosts.push_back(host.get<std::string>());
  }
  return hosts;
}

int64_t TtlSeconds(absl::Duration ttl) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(ttl))));
}

class GrpcPlacementBackend final : public PlacementBackend {
 public:
  GrpcPlacementBackend(std::unique_ptr<client::TopoplaceClient> client, std::string policy)
      : client_(std::move(client)), policy_(std::move(policy)) {}

  absl::StatusOr<GroupPlan> Reserve(const std::string& job_spec, absl::Duration ttl,
                                    const std::vector<std::string>& hosts,
                                    const std::vector<std::string>& releasing,
                                    double run_seconds) override {
    v1::ReserveRequest request;
    if (run_seconds > 0) request.mutable_outlook()->set_run_seconds(run_seconds);
    request.set_job_spec(job_spec);
    request.set_policy(policy_);
    request.set_ttl_seconds(TtlSeconds(ttl));
    for (const std::string& host : hosts) request.add_hosts(host);
    for (const std::string& id : releasing) request.add_release_allocation_ids(id);
    // The daemon retries lost races itself (scheduler/reserve/reserver.h), and the client
    // asks again after ABORTED; ABORTED still here means sustained contention, and the pod
    // is retried by kube-scheduler's own loop.
    absl::StatusOr<v1::ReserveResponse> response = client_->Reserve(request);
    if (!response.ok()) return response.status();
    GroupPlan plan;
    plan.allocation_id = response->allocation().allocation_id();
    plan.hosts.assign(response->plan().hosts().begin(), response->plan().hosts().end());
    plan.expires = ExpiresOf(response->allocation());
    return plan;
  }

  absl::Status Commit(const std::string& allocation_id, const std::string& external_id) override {
    return client_->Commit(allocation_id, external_id).status();
  }

  absl::StatusOr<absl::Time> Renew(const std::string& allocation_id, absl::Duration ttl) override {
    absl::StatusOr<v1::Allocation> renewed = client_->Renew(allocation_id, TtlSeconds(ttl));
    if (!renewed.ok()) return renewed.status();
    return ExpiresOf(*renewed);
  }

  absl::Status Release(const std::string& allocation_id) override {
    return client_->Release(allocation_id).status();
  }

  absl::StatusOr<PreemptionChoice> PlanPreemption(const std::string& job_spec) override {
    TP_ASSIGN_OR_RETURN(v1::PlaceResponse response,
                        client_->Place(job_spec, policy_, /*may_preempt=*/true));
    PreemptionChoice choice;
    choice.hosts.assign(response.plan().hosts().begin(), response.plan().hosts().end());
    for (const v1::Victim& v : response.victims()) {
      choice.victims.push_back({v.allocation_id(), v.external_id()});
    }
    return choice;
  }

  absl::StatusOr<GroupPlan> FindCommitted(const std::string& external_id) override {
    TP_ASSIGN_OR_RETURN(v1::Allocation allocation, client_->GetAllocationByExternalId(external_id));
    TP_ASSIGN_OR_RETURN(v1::ExplainResponse explain, client_->Explain(allocation.allocation_id()));
    GroupPlan plan;
    plan.allocation_id = allocation.allocation_id();
    TP_ASSIGN_OR_RETURN(plan.hosts, PlanHosts(explain.plan_json()));
    plan.expires = ExpiresOf(allocation);
    return plan;
  }

 private:
  std::unique_ptr<client::TopoplaceClient> client_;
  std::string policy_;
};

}  // namespace

absl::StatusOr<PlacementBackendPtr> ConnectGrpcPlacementBackend(
    const client::ClientOptions& options, std::string policy) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<client::TopoplaceClient> client,
                      client::TopoplaceClient::Connect(options));
  return PlacementBackendPtr(
      std::make_unique<GrpcPlacementBackend>(std::move(client), std::move(policy)));
}

}  // namespace topoplace::k8s
