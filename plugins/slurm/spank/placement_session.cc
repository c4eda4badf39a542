#include "plugins/slurm/spank/placement_session.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/input_file.h"
#include "base/status_macros.h"

namespace topoplace::slurm {

std::string SlurmExternalId(uint32_t job_id) { return absl::StrCat("slurm:", job_id); }

absl::StatusOr<std::unique_ptr<PlacementSession>> PlacementSession::Open(
    const SpankConfig& config) {
  client::ClientOptions options;
  options.server = config.server;
  options.timeout = config.timeout;
  // Job start waits for a replica election at most as long as for one call.
  options.failover_wait = config.timeout;
  options.ca_file = config.ca_file;
  options.munge_socket = config.munge_socket;
  if (options.munge_socket.empty() && !config.token_file.empty()) {
    TP_ASSIGN_OR_RETURN(const std::string text,
                        ReadInputFile(config.token_file, kMaxCredentialFileBytes, "token_file"));
    const absl::string_view line = absl::string_view(text).substr(0, text.find('\n'));
    options.token = std::string(absl::StripAsciiWhitespace(line));
  }
  TP_ASSIGN_OR_RETURN(std::unique_ptr<client::TopoplaceClient> client,
                      client::TopoplaceClient::Connect(options));
  return std::unique_ptr<PlacementSession>(new PlacementSession(config, std::move(client)));
}

absl::StatusOr<Reservation> PlacementSession::Reserve(const std::string& job_spec,
                                                      const std::string& request_id,
                                                      const std::vector<std::string>& hosts) {
  client::v1::ReserveRequest request;
  request.set_job_spec(job_spec);
  request.mutable_hosts()->Assign(hosts.begin(), hosts.end());
  request.set_policy(config_.policy);
  request.set_ttl_seconds(config_.ttl_seconds);
  request.set_request_id(request_id);
  // The daemon retries lost races itself (scheduler/reserve/reserver.h) and the client asks
  // again after ABORTED (client/topoplace_client.h); ABORTED still here means sustained
  // contention, and the job is left to Slurm like any other failed placement.
  absl::StatusOr<client::v1::ReserveResponse> response = client_->Reserve(request);
  if (!response.ok()) return response.status();
  TP_ASSIGN_OR_RETURN(PlanView plan, ParsePlanJson(response->plan().json()));
  return Reservation{response->allocation().allocation_id(), std::move(plan)};
}

absl::Status PlacementSession::Commit(const std::string& plan_id, uint32_t job_id) {
  return client_->Commit(plan_id, SlurmExternalId(job_id)).status();
}

absl::Status PlacementSession::Release(const std::string& plan_id) {
  return client_->Release(plan_id).status();
}

absl::StatusOr<AllocationOwner> PlacementSession::Owner(const std::string& plan_id) {
  TP_ASSIGN_OR_RETURN(client::v1::Allocation a, client_->GetAllocation(plan_id));
  return AllocationOwner{a.allocation_id(), a.state() == client::v1::ALLOCATION_STATE_RESERVED,
                         a.external_id(), a.request_id()};
}

absl::StatusOr<PlanView> PlacementSession::FetchPlan(const std::string& plan_id) {
  TP_ASSIGN_OR_RETURN(client::v1::ExplainResponse explain, client_->Explain(plan_id));
  return ParsePlanJson(explain.plan_json());
}

}  // namespace topoplace::slurm
